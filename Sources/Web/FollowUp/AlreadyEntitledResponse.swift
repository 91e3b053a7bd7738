import HTTPCore
import HTTPRouting
import Templating
import UseCases

/// `/checkout/start` refusing a plan the buyer already holds (API.md "Already entitled"): `409`
/// with a page naming where the subscription is managed, with the store's own link, or, asked
/// with `Accept: application/json`, `{"error": {"code": "already_entitled", "entitlement",
/// "store", "manage_url", ...}}`.
enum AlreadyEntitledResponse {
    static let code = "already_entitled"

    /// The answer to `request` for `refusal`.
    /// - Throws: `TemplateError` when the page cannot be rendered.
    static func response(_ refusal: AlreadyEntitledCheck.Refusal, request: HTTPRequest, pages: Pages, language: String) throws -> HTTPResponse {
        if request.headers["Accept"]?.lowercased().contains("application/json") == true {
            return .json(status: .conflict) { json in
                json.object("error") { error in
                    error.string("code", code)
                    error.string("message", "You already have \(refusal.entitlement) (\(refusal.store)); manage it at \(refusal.manageURL).")
                    error.bool("retryable", false)
                    write(refusal, into: &error)
                }
            }
        }
        return try pages.render(
            "already_entitled", language: language, status: .conflict,
            [
                "entitlement": .string(refusal.entitlement), "manage_url": .string(refusal.manageURL),
                "store_\(refusal.store)": true
            ])
    }

    /// `entitlement`, `store`, `manage_url`.
    static func write(_ refusal: AlreadyEntitledCheck.Refusal, into json: inout JSONWriter) {
        json.string("entitlement", refusal.entitlement)
        json.string("store", refusal.store)
        json.string("manage_url", refusal.manageURL)
    }
}
