import Crypto
import Domain
import HTTPServer

/// `Idempotency-Key` on `/api/v1/*` POSTs: a repeat with the same key, caller and body gets
/// the first answer back (kept 24 h); the same key with another body or another caller's
/// credentials is `409 conflict`.
struct IdempotencyKeys: Sendable {
    let services: AppServices

    /// Runs `handler` once per key; answers a repeat from the stored response.
    /// - Throws: `APIError` for a malformed key or a key reused with another body.
    func run(
        _ request: HTTPRequest, scope: String, _ handler: () async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        guard let key = request.headers["Idempotency-Key"] else { return try await handler() }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw APIError.badRequest("Idempotency-Key must be 1 to 255 visible ASCII characters.")
        }
        // The caller is part of the request: a key replays an answer only to whoever got it first.
        let caller = (request.headers["Authorization"] ?? "") + "\n" + (request.headers["X-Api-Key"] ?? "")
        let requestHash = Hex.encode(try SHA256.hash(Array("\(request.method.rawValue) \(request.path)\n\(caller)\n".utf8) + request.body))
        let now = services.now()
        if let stored = try await services.database.read({ try IdempotencyStore.find(scope: scope, key: key, on: $0, now: now) }) {
            guard stored.requestHash == requestHash else {
                throw APIError.conflict("This Idempotency-Key was already used with a different request body.")
            }
            var replay = HTTPResponse(status: HTTPStatus(code: stored.status), body: stored.body)
            replay.headers.set("Content-Type", stored.contentType)
            replay.headers.set("Cache-Control", "no-store")
            replay.headers.set("Idempotent-Replayed", "true")
            return replay
        }
        let response = try await handler()
        if response.status.code < 500 {
            let answer = IdempotencyStore.Stored(
                requestHash: requestHash, status: response.status.code,
                contentType: response.headers["Content-Type"] ?? "application/json; charset=utf-8", body: response.body)
            try await services.database.write { try IdempotencyStore.store(scope: scope, key: key, answer: answer, on: $0, now: now) }
        }
        return response
    }
}
