import Foundation
import Domain
import HTTPCore
import HTTPRouting
import UseCases

/// The app's store endpoints: `POST /api/v1/iap/gonative` and `GET /api/v1/products`.
///
/// **gonative** (GoNative / Median IAP plug-in): `{"receipt-data": "<base64 app receipt>"}`
/// with the app key and `Authorization: Bearer <access_token>` (`401` without one); see
/// `ClaimGoNativeReceipt`. Answers `200`:
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
    let gonative: ClaimGoNativeReceipt
    let products: [String]
    let entitlements: [String: [String]]
    let appName: String
    let links: Links
    let now: @Sendable () -> Date

    private struct GoNativeBody: Decodable {
        let receiptData: String

        enum CodingKeys: String, CodingKey {
            case receiptData = "receipt-data"
        }
    }

    func add(to group: inout RouteGroup, _ middleware: RouteMiddleware) {
        group.add(.post, "/api/v1/iap/gonative", maxBodyBytes: 512 * 1024) { [self] request, context in
            guard let bearer = try BearerToken.read(request) else {
                throw APIError.unauthorized("Sign in first: send Authorization: Bearer <access_token>.")
            }
            let body = try request.decodeJSON(GoNativeBody.self)
            // An invalid token is refused before Apple is asked anything.
            try await gonative.checkSignedIn(bearer, now: now())
            return try await middleware.idempotent("iap.gonative").handle(request, context: context) { _, _ in
                answer(try await gonative.claim(receipt: body.receiptData, bearer: bearer, now: now()))
            }
        }
        group.add(.get, "/api/v1/products") { [products, entitlements] _, _ in
            .json { json in
                json.array("products", products) { json, product in
                    json.object { item in
                        item.string("id", product)
                        item.strings("entitlements", entitlements.keys.sorted().filter { entitlements[$0]?.contains(product) == true })
                    }
                }
            }
        }
    }

    private func answer(_ outcome: ClaimGoNativeReceipt.Outcome) -> HTTPResponse {
        switch outcome {
        case .notVerified(let why):
            return Self.answer(success: false, title: "Purchase not verified", message: "The App Store did not confirm this purchase. \(why)", loadURL: nil)
        case .belongsToOtherAccount:
            return Self.answer(
                success: false, title: "Purchase belongs to another account",
                message: "This purchase is already linked to another \(appName) account. Sign in to that account to use it.", loadURL: nil)
        case .expired:
            return Self.answer(success: false, title: "Purchase expired", message: "This purchase is no longer active.", loadURL: nil)
        case .unlocked(let purchase, let unlocked):
            var message = unlocked.isEmpty ? "Your purchase is active" : "\(unlocked.joined(separator: ", ")) is unlocked"
            if let expires = purchase.expiresAt { message += " until \(Timestamp.rfc3339(expires))" }
            return Self.answer(success: true, title: "Purchase complete", message: message + ".", loadURL: links.url("/"))
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
