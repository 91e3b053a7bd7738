import Foundation
import Crypto
import HTTPCore
import HTTPRouting
import UseCases

/// `Idempotency-Key` on `/api/v1/*` POSTs: a repeat with the same key, caller and body gets the
/// first answer back (kept 24 h, stored sealed); the same key with another body or another
/// caller's credentials is `409 conflict`. Answers of 500 and above are not kept.
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
        let caller = (request.headers["Authorization"] ?? "") + "\n" + (request.headers["X-Api-Key"] ?? "")
        let requestHash = Hex.encode(try SHA256.hash(Array("\(request.method.rawValue) \(request.path)\n\(caller)\n".utf8) + request.body))
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
}
