import Domain
import Foundation
import HTTPCore
import HTTPRouting
import JSON
import UseCases

/// The app's redemption API: `POST /api/v1/redeem`, `GET /api/v1/entitlements`,
/// `GET /api/v1/checkout/{checkout_context_id}`, `POST /api/v1/codes/resend`.
struct RedemptionAPIRoutes {
    let redeem: RedeemCode
    let entitlements: ListEntitlements
    let checkoutStatus: CheckoutStatus
    let resend: ResendCodes
    let now: @Sendable () -> Date

    /// How often apps poll a pending checkout (API.md: every 5 s, giving up after about 60 s).
    static let pollAfterSeconds = 5

    struct RedeemBody: Decodable {
        let code: String
        let appUserId: String
        let appUserSecret: String?
        let deviceId: String?

        /// The body read without `Decodable` (a third of the route's decoding cost) when it has
        /// the plain shape: an object whose `code` and `app_user_id` are strings and whose
        /// `app_user_secret` and `device_id` are strings, null or absent, and that has no other
        /// member. Nil otherwise: the decoder then decides (it ignores unknown members, and also
        /// takes `appUserId` for `app_user_id`), and answers the precise 400.
        static func read(_ value: JSONValue) -> RedeemBody? {
            guard case .object(let members) = value else { return nil }
            var code: String?, appUserID: String?, secret: String?, device: String?
            for (key, member) in members {
                switch (key, member) {
                case ("code", .string(let text)): code = text
                case ("app_user_id", .string(let text)): appUserID = text
                case ("app_user_secret", .string(let text)): secret = text
                case ("device_id", .string(let text)): device = text
                case ("code", _), ("app_user_id", _): return nil
                case ("app_user_secret", .null), ("device_id", .null): continue
                default: return nil
                }
            }
            guard let code, let appUserID else { return nil }
            return RedeemBody(code: code, appUserId: appUserID, appUserSecret: secret, deviceId: device)
        }
    }

    struct ResendBody: Decodable {
        let email: String
    }

    func add(to group: inout RouteGroup, _ middleware: RouteMiddleware) {
        // Failures per address (loose: many users share one behind NAT) in middleware; per address
        // and app user (tight) in the handler, which has the body decoded.
        let addressFailures = middleware.limits(
            [.redeem], counting: .outcomes([RedeemResponse.invalidOutcome, RedeemResponse.secretMismatchOutcome]))
        let userFailures = middleware.throttle(.redeemUser)
        group.add(.post, "/api/v1/redeem", maxBodyBytes: 16 * 1024, [addressFailures, middleware.idempotent("redeem"), BearerTokenMiddleware()]) {
            [redeem, now] request, context in
            let body = try request.decodeJSON(RedeemBody.self, context, reading: RedeemBody.read)
            _ = try AppUserIDInput.require(body.appUserId)
            let secret = try AppUserSecretInput.read(request, fieldValue: body.appUserSecret)
            if let device = body.deviceId { _ = try DeviceIDInput.require(device) }
            let now = now()
            let userKey = [(context.clientAddress ?? "") + "\n" + body.appUserId]
            try userFailures.check(userKey, now: now)
            let input = RedeemCode.Request(
                code: body.code, appUserID: body.appUserId, secret: secret, deviceID: body.deviceId, bearer: context.bearerToken)
            let result = try await redeem.redeem(input, now: now)
            if result.isFailure { userFailures.record(userKey, now: now) }
            return RedeemResponse.json(result, appUserID: body.appUserId)
        }
        group.add(.get, "/api/v1/entitlements", [BearerTokenMiddleware()]) { [entitlements, now] request, context in
            let subject: ListEntitlements.Subject
            if let bearer = context.bearerToken {
                subject = .bearer(bearer)
            } else if let appUserID = request.queryParameter("app_user_id") {
                subject = .appUser(try AppUserIDInput.require(appUserID), secret: try AppUserSecretInput.fromQuery(request))
            } else {
                throw APIError.badRequest("Send Authorization: Bearer <access_token> or ?app_user_id=.")
            }
            let listing = try await entitlements.list(for: subject, now: now())
            return .json { json in
                json.string("account_id", listing.accountID)
                PurchaseJSON.writeEntitlements(listing.entitlements, withSource: true, into: &json)
            }
        }
        group.add(.get, "/api/v1/checkout/{checkout_context_id}", [BearerTokenMiddleware()]) { [checkoutStatus, now] request, context in
            let caller = CheckoutStatus.Caller(
                appUserID: try request.queryParameter("app_user_id").map { try AppUserIDInput.require($0) },
                secret: try AppUserSecretInput.fromQuery(request), bearer: context.bearerToken)
            let now = now()
            guard let contextID = UUIDInput.canonical(context.parameters["checkout_context_id"] ?? "") else {
                throw APIError.badRequest("checkout_context_id must be a UUID (8-4-4-4-12 hex digits).")
            }
            let status = try await checkoutStatus.status(contextID: contextID, caller: caller, now: now)
            return .json { json in
                switch status {
                case .complete(let shown):
                    json.string("status", "complete")
                    switch shown {
                    case .statusOnly:
                        return
                    case .named(let isEntitled, let entitlements):
                        json.object("result") { result in
                            result.string("status", isEntitled ? "success" : "expired_subscription")
                            PurchaseJSON.writeEntitlements(entitlements, withSource: false, into: &result)
                            result.bool("session_required", true)
                        }
                    case .proved(let shown):
                        let answer = RedeemedJSON(
                            isEntitled: shown.purchase.isEntitled(at: now), code: shown.code?.display, purchase: shown.purchase,
                            appUserID: caller.appUserID, entitlements: shown.entitlements, accountSwitched: false,
                            proof: (shown.account, shown.tokens))
                        json.object("result") { answer.write(into: &$0) }
                    }
                case .failed:
                    json.string("status", "failed")
                case .pending:
                    json.string("status", "pending")
                    json.int("poll_after_seconds", Self.pollAfterSeconds)
                }
            }
        }
        group.add(
            .post, "/api/v1/codes/resend", maxBodyBytes: 4096,
            [middleware.limit(.resend), middleware.idempotent("codes.resend")]
        ) { [resend, now] request, context in
            let email = try EmailAddress.require(try request.decodeJSON(ResendBody.self, context).email)
            try await resend.resend(to: email, now: now())
            // The same answer whether or not the email has purchases: no account enumeration.
            return .json(status: .accepted) { $0.string("status", "accepted") }
        }
    }
}
