import Foundation

/// One logical call to the service, built once and sent as often as the retry policy allows:
/// the body bytes and the `Idempotency-Key` are fixed here, so every attempt is the same request.
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
struct APIRequest: Sendable {
    /// Which failures may be retried without risking a second effect.
    enum RetryScope: Sendable {
        /// GETs and POSTs the service makes idempotent (`Idempotency-Key`): any network
        /// failure, `5xx` and `429`.
        case safe
        /// Single-use grants (`/auth/token`): only failures where the request surely was not
        /// processed — no connection was made, or `429` (rate limits answer before any work).
        /// A rotated refresh token sent twice would revoke the whole sign-in.
        case unprocessedOnly
    }

    /// Whether the stored session's bearer token goes along.
    enum Authorization: Sendable {
        case none
        /// Sent when a session is stored (redeem, entitlements, claims).
        case ifSignedIn
    }

    var method: String
    var path: String
    var query: [URLQueryItem] = []
    var body: Data?
    var contentType: String?
    var idempotencyKey: String?
    var retry: RetryScope = .safe
    var authorization: Authorization = .ifSignedIn

    /// A JSON POST to an `/api/v1/*` endpoint, with a fresh `Idempotency-Key` for this call.
    static func jsonPost(_ path: String, _ object: [String: Any]) throws -> APIRequest {
        // JSONSerialization, not JSONValue: this library ships to apps and depends on no Tollgate target (a module named JSON would clash in theirs).
        let body = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return APIRequest(
            method: "POST", path: path, body: body, contentType: "application/json", idempotencyKey: UUID().uuidString.lowercased())
    }

    /// A form POST to `/auth/token` (OAuth's format).
    static func tokenGrant(_ fields: [(String, String)]) -> APIRequest {
        let body = fields.map { FormEncoding.encode($0.0) + "=" + FormEncoding.encode($0.1) }.joined(separator: "&")
        return APIRequest(
            method: "POST", path: "/auth/token", body: Data(body.utf8), contentType: "application/x-www-form-urlencoded",
            retry: .unprocessedOnly, authorization: .none)
    }
}

/// `application/x-www-form-urlencoded` and query escaping that leaves only RFC 3986
/// unreserved characters bare (URLComponents would leave `+`, which servers read as a space).
enum FormEncoding {
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func encode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// `name=value&...` in the given order.
    static func query(_ items: [URLQueryItem]) -> String {
        items.map { encode($0.name) + "=" + encode($0.value ?? "") }.joined(separator: "&")
    }
}
