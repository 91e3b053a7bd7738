import Foundation
import Crypto
import HTTPCore
import HTTPRouting
import JSON
import UseCases

/// `Idempotency-Key` on `/api/v1/*` POSTs: a repeat with the same key, caller and body gets the
/// first answer back (kept 24 h, stored sealed); the same key with another body is `409
/// conflict`. Keys are scoped to the caller (API key plus bearer, or app user plus install secret:
/// API.md's POST conventions), so one caller's key never replays, or blocks, another's answer, and
/// a replay never carries a `session` or `login_url` to a caller without the first call's proof.
/// Answers of 500 and above are not kept.
struct IdempotencyMiddleware: Middleware {
    let replies: IdempotentReplies
    /// Keys are scoped per endpoint (`redeem`, `iap.apple`, ...).
    let scope: String
    let now: @Sendable () -> Date

    func handle(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        guard let key = request.headers["Idempotency-Key"] else { return try await next(request, context) }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw APIError.badRequest("Idempotency-Key must be 1 to 255 visible ASCII characters.")
        }
        // The caller is part of the request: a key replays an answer only to whoever got it first.
        let caller = Self.caller(request, body: context.jsonBody)
        let requestHash = Hex.encode(try SHA256.hash(Array("\(request.method.rawValue) \(request.path)\n\(caller)\n".utf8) + request.body))
        let scope = self.scope + ":" + Hex.encode(try SHA256.hash(Array(caller.utf8)))
        let now = self.now()
        if let stored = try await replies.find(scope: scope, key: key, now: now) {
            guard stored.requestHash == requestHash else {
                throw APIError.conflict("This Idempotency-Key was already used with a different request body.")
            }
            var replay = HTTPResponse(status: HTTPStatus(code: stored.status), body: stored.body)
            replay.headers.set("Content-Type", stored.contentType)
            replay.headers.set("Cache-Control", "no-store")
            replay.headers.set("Idempotent-Replayed", "true")
            return replay
        }
        let response = try await next(request, context)
        if response.status.code < 500 {
            let reply = IdempotentReplies.Reply(
                requestHash: requestHash, status: response.status.code,
                contentType: response.headers["Content-Type"] ?? "application/json; charset=utf-8", body: response.body)
            try await replies.store(reply, scope: scope, key: key, now: now)
        }
        return response
    }

    /// Who is calling: the API key, the bearer, and the app user with its install secret (header
    /// or `body`, the JSON body as the strict check read it), each as sent.
    static func caller(_ request: HTTPRequest, body: JSONValue?) -> String {
        var appUser = ""
        if request.headers["Content-Type"]?.lowercased().hasPrefix("application/json") == true, let body, case .object = body {
            appUser = [body["app_user_id"], body["app_user_secret"]].map { $0?.stringValue ?? "" }.joined(separator: "\n")
        }
        return [
            request.headers["X-Api-Key"] ?? "", request.headers["Authorization"] ?? "", request.headers["X-App-User-Secret"] ?? "", appUser
        ].joined(separator: "\n")
    }
}
