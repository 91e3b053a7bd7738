import Crypto
import Domain
import Foundation
import HTTPServer
import Storage

/// The app's redemption API: `POST /api/v1/redeem`, `GET /api/v1/entitlements`,
/// `GET /api/v1/checkout/{checkout_context_id}`, `POST /api/v1/codes/resend`.
struct RedemptionAPIRoutes {
    let services: AppServices
    let auth: AppAuthentication

    /// Failed redemptions allowed per client address per window before `429`.
    static let failureLimit = 10
    static let failureWindow: TimeInterval = 600
    /// Resend requests per client address per window.
    static let resendLimit = 5

    struct RedeemBody: FlatJSONDecodable {
        let code: String
        let appUserId: String
        let deviceId: String?

        init?(flat: FlatJSONObject) {
            guard let code = flat.requiredString("code"), let appUserID = flat.requiredString("app_user_id") else { return nil }
            self.code = code
            self.appUserId = appUserID
            self.deviceId = flat["device_id"] ?? nil
        }
    }

    struct ResendBody: Decodable {
        let email: String
    }

    func register(on router: inout Router) {
        let idempotency = IdempotencyKeys(services: services)
        router.add(.post, "/api/v1/redeem", maxBodyBytes: 16 * 1024) { [services, auth] request, context in
            try auth.apiKeys.verify(request)
            let client = services.clientAddress.address(for: request, context: context)
            let now = services.now()
            if let wait = services.rateLimiter.retryAfter("redeem:\(client)", limit: Self.failureLimit, now: now) {
                throw APIError.rateLimited(retryAfterSeconds: wait)
            }
            let body = try request.decodeJSON(RedeemBody.self)
            guard !body.appUserId.isEmpty, body.appUserId.utf8.count <= 255 else {
                throw APIError.badRequest("app_user_id must be 1 to 255 characters.")
            }
            if let device = body.deviceId, device.isEmpty || device.utf8.count > 255 {
                throw APIError.badRequest("device_id must be 1 to 255 characters.")
            }
            let bearer = try AppAuthentication.bearerToken(request)
            return try await idempotency.run(request, scope: "redeem") {
                let result = try await redeem(body, bearer: bearer, now: now)
                if result.failed { services.rateLimiter.record("redeem:\(client)", window: Self.failureWindow, now: now) }
                if result.mailed { services.mailQueued() }
                return result.response
            }
        }
        router.add(.get, "/api/v1/entitlements") { [services, auth] request, _ in
            try auth.apiKeys.verify(request)
            let bearer = try AppAuthentication.bearerToken(request)
            let appUserID = request.queryParameter("app_user_id")
            guard bearer != nil || appUserID != nil else {
                throw APIError.badRequest("Send Authorization: Bearer <access_token> or ?app_user_id=.")
            }
            let now = services.now()
            let (accountID, purchases) = try await services.database.read { connection -> (String?, [Purchase]) in
                let accountID: String?
                if bearer != nil {
                    accountID = try AppAuthentication.account(for: bearer, on: connection, now: now)
                } else {
                    accountID = try AccountRepository.find(appUserID: appUserID ?? "", on: connection)?.id
                }
                guard let accountID else { return (nil, []) }
                return (accountID, try PurchaseRepository.forAccount(accountID, on: connection))
            }
            let entitlements = services.catalog.entitlements(for: purchases, at: now)
            return .json { json in
                json.string("account_id", accountID)
                json.array("entitlements", entitlements) { json, entitlement in
                    json.object { item in
                        item.string("id", entitlement.id)
                        item.bool("active", entitlement.active)
                        item.string("expires_at", entitlement.expiresAt.map(Timestamp.rfc3339))
                        item.string("source", entitlement.source.rawValue)
                    }
                }
            }
        }
        router.add(.get, "/api/v1/checkout/{checkout_context_id}") { [services, auth] request, context in
            try auth.apiKeys.verify(request)
            let contextID = context.parameters["checkout_context_id"] ?? ""
            let now = services.now()
            let state = try await services.database.read { connection -> (CheckoutRecord, Purchase?, Account?)? in
                guard let checkout = try CheckoutRepository.find(contextID: contextID, on: connection) else { return nil }
                let purchase = try checkout.purchaseID.flatMap { try PurchaseRepository.find(id: $0, on: connection) }
                let account = try purchase?.accountID.flatMap { try AccountRepository.find(id: $0, on: connection) }
                return (checkout, purchase, account)
            }
            guard let (checkout, purchase, account) = state else {
                throw APIError.notFound("No checkout was started with this checkout_context_id.")
            }
            return .json { json in
                switch (checkout.status, purchase) {
                case ("complete", let purchase?):
                    json.string("status", "complete")
                    json.object("result") { result in
                        result.string("status", purchase.isEntitled(at: now) ? "success" : "expired_subscription")
                        RedeemResponse.writeRedemptionInfo(purchase, appUserID: nil, catalog: services.catalog, now: now, into: &result)
                        if let account {
                            result.object("account") { item in
                                item.string("id", account.id)
                                item.string("obfuscated_account_id", account.obfuscatedID)
                                item.string("email", account.email)
                                item.bool("email_verified", account.emailVerified)
                            }
                        }
                    }
                case ("expired", _), ("failed", _):
                    json.string("status", "failed")
                default:
                    json.string("status", "pending")
                }
            }
        }
        router.add(.post, "/api/v1/codes/resend", maxBodyBytes: 4096) { [services, auth] request, context in
            try auth.apiKeys.verify(request)
            let body = try request.decodeJSON(ResendBody.self)
            let email = try EmailAddress.require(body.email)
            let client = services.clientAddress.address(for: request, context: context)
            let now = services.now()
            if let wait = services.rateLimiter.retryAfter("resend:\(client)", limit: Self.resendLimit, now: now) {
                throw APIError.rateLimited(retryAfterSeconds: wait)
            }
            services.rateLimiter.record("resend:\(client)", window: Self.failureWindow, now: now)
            return try await idempotency.run(request, scope: "codes.resend") {
                let sent = try await CodeResend(services: services).resendAll(email: email, now: now)
                if sent > 0 { services.mailQueued() }
                // The same answer whether or not the email has purchases: no account enumeration.
                return .json(status: .accepted) { $0.string("status", "accepted") }
            }
        }
    }
}
