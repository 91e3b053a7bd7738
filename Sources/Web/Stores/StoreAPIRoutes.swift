import Foundation
import Domain
import HTTPCore
import HTTPRouting
import UseCases

/// The app's store endpoints: `POST /api/v1/iap/gonative` (bearer or web session cookie) and `GET /api/v1/products`.
///
/// **gonative** (GoNative / Median IAP plug-in): `{"receipt-data": "<base64 app receipt>"}`
/// with the app key and `Authorization: Bearer <access_token>` (`401` without one); see
/// `ClaimGoNativeReceipt`. Answers `200`:
///
/// `title` and `message` in the buyer's language (`Accept-Language`, `?locale=`; English shown):
///
/// | outcome | `success` | `title` | `message` | `loadUrl` |
/// | --- | --- | --- | --- | --- |
/// | stored, entitled | true | "Purchase complete" | what is unlocked, until when | `{base_url}/` |
/// | stored, no longer entitled | false | "Purchase expired" | the purchase ended | `{base_url}/gonative/store` |
/// | receipt refused (422 from the store) | false | "Purchase not verified" | why (and `error`: Apple's `status`, the reason) | `{base_url}/gonative/store` |
/// | held by another account | false | "Purchase belongs to another account" | sign in to it | `{base_url}/account` |
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
    let pages: Pages
    let links: Links
    let now: @Sendable () -> Date

    struct GoNativeBody: Decodable {
        let receiptData: String

        enum CodingKeys: String, CodingKey {
            case receiptData = "receipt-data"
        }
    }

    func add(to group: inout RouteGroup, _ middleware: RouteMiddleware) {
        group.add(.post, "/api/v1/iap/gonative", maxBodyBytes: 512 * 1024, [BearerTokenMiddleware()]) { [self] request, context in
            // The app's bearer token, or (a web view) the buyer's web session cookie.
            let credential: Credential
            if let bearer = context.bearerToken {
                credential = .bearer(bearer)
            } else if let cookie = WebCookies.value(WebCookies.session, in: request) {
                credential = .webSession(cookie)
            } else {
                throw APIError.unauthorized("Sign in first: send Authorization: Bearer <access_token> or the web session cookie.")
            }
            let body = try request.decodeJSON(GoNativeBody.self, context)
            // An invalid token is refused before Apple is asked anything.
            try await gonative.checkSignedIn(credential, now: now())
            return try await middleware.idempotent("iap.gonative").handle(request, context: context) { _, context in
                let outcome = try await gonative.claim(receipt: body.receiptData, credential: credential, now: now())
                GoNativeReply.log(outcome, to: context.logger)
                return GoNativeReply.answer(
                    outcome, words: GoNativeReply.Words(pages: pages, language: pages.language(for: request), appName: appName),
                    to: GoNativeReply.Destinations(links: links, success: links.url("/")))
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
}
