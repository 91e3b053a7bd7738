import Domain
import Foundation
import HTTPServer
import Storage

/// The app's store endpoints: `POST /api/v1/iap/gonative` and `GET /api/v1/products`.
///
/// **gonative** (GoNative / Median IAP plug-in): `{"receipt-data": "<base64 app receipt>"}`
/// with the app key and `Authorization: Bearer <access_token>` (this service has no browser
/// session cookie, so a bearer is required: `401` without one). The receipt is verified with
/// verifyReceipt and its newest purchase stored and linked to the signed-in account (held by
/// another account: moved under `transfer`, refused otherwise). Answers `200`:
///
/// | outcome | `success` | `title` | `message` | `loadUrl` |
/// | --- | --- | --- | --- | --- |
/// | stored, entitled | true | "Purchase complete" | what is unlocked, until when | `{base_url}/` |
/// | stored, no longer entitled | false | "Purchase expired" | the purchase ended | null |
/// | receipt refused (422 from the store) | false | "Purchase not verified" | why | null |
/// | held by another account | false | "Purchase belongs to another account" | sign in to it | null |
///
/// Store unreachable or not configured stay errors (`502` / `503` in the API.md shape).
///
/// **products**: `{"products": [{"id", "entitlements": [...]}]}`, the ids of `products` in
/// config, each with the entitlement ids it grants (from `entitlements`).
struct StoreAPIRoutes {
    let services: AppServices
    let auth: AppAuthentication

    private struct GoNativeBody: Decodable {
        let receiptData: String

        enum CodingKeys: String, CodingKey {
            case receiptData = "receipt-data"
        }
    }

    private enum GoNativeOutcome: Sendable {
        case stored(Purchase, entitled: Bool)
        case belongsToOtherAccount
    }

    func register(on router: inout Router) {
        let idempotency = IdempotencyKeys(services: services)
        router.add(.post, "/api/v1/iap/gonative", maxBodyBytes: 512 * 1024) { [services, auth] request, _ in
            try auth.apiKeys.verify(request)
            guard let bearer = try AppAuthentication.bearerToken(request) else {
                throw APIError.unauthorized("Sign in first: send Authorization: Bearer <access_token>.")
            }
            let body = try request.decodeJSON(GoNativeBody.self)
            let now = services.now()
            // An invalid token is refused before Apple is asked anything.
            _ = try await services.database.read { try AppAuthentication.account(for: bearer, on: $0, now: now) }
            return try await idempotency.run(request, scope: "iap.gonative") {
                try await gonative(receipt: body.receiptData, bearer: bearer)
            }
        }
        router.add(.get, "/api/v1/products") { [services, auth] request, _ in
            try auth.apiKeys.verify(request)
            let mapping = services.config.entitlements
            return .json { json in
                json.array("products", services.config.products) { json, product in
                    json.object { item in
                        item.string("id", product)
                        item.strings("entitlements", mapping.keys.sorted().filter { mapping[$0]?.contains(product) == true })
                    }
                }
            }
        }
    }

    private func gonative(receipt: String, bearer: String) async throws -> HTTPResponse {
        let verifier = StorePurchaseVerifier(services: services)
        let verified: VerifiedStorePurchase
        do {
            verified = try await verifier.appStore(receiptBase64: receipt)
        } catch let error as APIError where error.code == "invalid_receipt" {
            return Self.answer(success: false, title: "Purchase not verified", message: "The App Store did not confirm this purchase. \(error.message)", loadURL: nil)
        }
        let services = self.services
        let now = services.now()
        let policy = PurchaseClaim.policy(services)
        let outcome = try await verifier.record(verified) { connection, applied -> GoNativeOutcome in
            guard let accountID = try AppAuthentication.account(for: bearer, on: connection, now: now) else {
                throw APIError.unauthorized("Sign in first.")
            }
            let claim = try PurchaseClaim.claim(applied.purchase, for: accountID, appUserID: nil, policy: policy, on: connection, now: now)
            guard case .held = claim else { return .belongsToOtherAccount }
            let purchase = try PurchaseRepository.require(id: applied.purchase.id, on: connection)
            return .stored(purchase, entitled: purchase.isEntitled(at: now))
        }
        switch outcome {
        case .belongsToOtherAccount:
            return Self.answer(
                success: false, title: "Purchase belongs to another account",
                message: "This purchase is already linked to another \(services.config.app.name) account. Sign in to that account to use it.",
                loadURL: nil)
        case .stored(let purchase, let entitled):
            guard entitled else {
                return Self.answer(success: false, title: "Purchase expired", message: "This purchase is no longer active.", loadURL: nil)
            }
            let unlocked = services.catalog.entitlements(for: [purchase], at: now).filter(\.active).map(\.id)
            var message = unlocked.isEmpty ? "Your purchase is active" : "\(unlocked.joined(separator: ", ")) is unlocked"
            if let expires = purchase.expiresAt { message += " until \(Timestamp.rfc3339(expires))" }
            return Self.answer(success: true, title: "Purchase complete", message: message + ".", loadURL: services.url("/"))
        }
    }

    private static func answer(success: Bool, title: String, message: String, loadURL: String?) -> HTTPResponse {
        .json { json in
            json.bool("success", success)
            json.string("title", title)
            json.string("message", message)
            json.string("loadUrl", loadURL)
        }
    }
}
