import Domain
import Foundation
import HTTPCore
import HTTPRouting
import Logging
import Templating
import UseCases

/// A GoNative (Median) app configured exactly as GoNative's docs say (API.md "The buyer's web
/// account"): `GET /gonative/products.json` is the `productsUrl` (`{"products": ["id", ...]}`,
/// no key); `GET /gonative/store` is the signed-in buyer's store page, whose buttons open
/// `gonative://purchase/{id}` and `gonative://iap/restorePurchases` and whose prices
/// `Public/gonative.js` fills in when the app calls `gonative_info_ready`; `POST /gonative/receipt`
/// is the `postUrl`: the app posts `{"receipt-data"}` with the web view's cookies, and every
/// answer to a receipt is GoNative's `200 {"success", "title", "message", "loadUrl"}`
/// (`GoNativeReply`), so a failure (signed out, refused, store down) is shown and the app posts
/// again at its next launch. A body that is not GoNative's request is a `400`. A post whose
/// `Origin` is another site's is refused in GoNative's shape, before anything is read or claimed.
struct GoNativeRoutes {
    let claim: ClaimGoNativeReceipt
    let gate: WebSessionGate
    let pages: Pages
    let products: [String]
    let names: ProductNames
    let appName: String
    let links: Links
    let now: @Sendable () -> Date

    func add(to group: inout RouteGroup) {
        group.add(.get, "/gonative/products.json") { [products] _, _ in
            .json { json in json.strings("products", products) }
        }
        group.add(.get, "/gonative/store") { [self] request, _ in
            guard let session = try await gate.session(request) else {
                return .redirect(to: "/account/sign-in?next=/gonative/store", status: .seeOther)
            }
            let page = try pages.render(
                "gonative_store", language: pages.language(for: request),
                [
                    "products": .list(products.map { .dictionary(["id": .string($0), "name": .string(names.name(of: $0))]) })
                ])
            return gate.refreshed(page, session, request: request)
        }
        group.add(.post, "/gonative/receipt", maxBodyBytes: 512 * 1024) { [self] request, context in
            try await receipt(request, context)
        }
    }

    private func receipt(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let credential = Credential.webSession(WebCookies.value(WebCookies.session, in: request))
        // Not GoNative's request at all (no JSON, no receipt): a 400 in API.md's shape. Every
        // answer to a receipt, whatever became of it, is GoNative's 200.
        let body = try request.decodeJSON(StoreAPIRoutes.GoNativeBody.self, context)
        guard !body.receiptData.isEmpty else { throw APIError.badRequest("receipt-data is empty: send the app receipt GoNative posts.") }
        let next = GoNativeReply.Destinations(links: links, success: links.url("/account"))
        let words = GoNativeReply.Words(pages: pages, language: pages.language(for: request), appName: appName)
        // A cookie form posted from another site (the web view only ever posts from our pages).
        if RequestOrigin.isForeign(request, baseURL: links.baseURL) {
            return GoNativeReply.refusal(.forbidden("The request comes from another site."), words: words, to: next)
        }
        do {
            try await claim.checkSignedIn(credential, now: now())
            let outcome = try await claim.claim(receipt: body.receiptData, credential: credential, now: now())
            GoNativeReply.log(outcome, to: context.logger)
            return GoNativeReply.answer(outcome, words: words, to: next)
        } catch let error as UseCaseError {
            return GoNativeReply.refusal(error, words: words, to: next)
        }
    }
}
