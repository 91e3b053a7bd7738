import Crypto
import Foundation
import HTTPCore
import HTTPRouting

/// Operators' `Authorization: Bearer <admin token>` on `/admin/v1/*`: the SHA-256 of the token
/// must be one of `admin.tokens_sha256` (the tokens themselves are never stored). The handler
/// finds the audit name (the token's name in `admin.tokens`, "admin token N" for the Nth of
/// `admin.tokens_sha256`, else `admin:<first 8 hex of the token hash>`) in `context.authenticatedAs`.
struct AdminTokenMiddleware: Middleware {
    let hashes: [[UInt8]]
    /// Hash (lower-case hex) → audit name.
    let names: [String: String]

    init(tokenHashes: [String], names: [String: String] = [:]) {
        hashes = tokenHashes.compactMap { try? Hex.decode($0) }
        self.names = names
    }

    func handle(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        var context = context
        context.authenticatedAs = try authenticate(request)
        // A parameter the route does not take (or one without a name, `?=x`) is no operator's
        // request: refused, naming it, not ignored (a misspelt `limt` would list everything).
        let takes = Self.queryParameters[request.path] ?? []
        if let unknown = request.queryItems.first(where: { !takes.contains($0.name) }) {
            if unknown.name.isEmpty { throw APIError.badRequest("A query parameter has no name.") }
            let known = takes.isEmpty ? "it takes none" : "it takes " + takes.sorted().joined(separator: ", ")
            throw APIError.badRequest("This route does not take the query parameter \(Self.printable(unknown.name)); \(known).")
        }
        return try await next(request, context)
    }

    /// The query parameters each admin route takes (as `openapi.json` documents them, which a
    /// test checks); every other admin route takes none.
    static let queryParameters: [String: Set<String>] = [
        "/admin/v1/accounts": ["email"], "/admin/v1/audit": ["limit"], "/admin/v1/codes": ["email"],
        "/admin/v1/events": ["status", "limit"], "/admin/v1/funnel": ["since"], "/admin/v1/outbox": ["status", "limit"],
        "/admin/v1/purchases": ["email"], "/admin/v1/reports": ["month", "limit"]
    ]

    /// A parameter name as an error message may quote it: printable ASCII, others as `\u{...}`, at most 40.
    static func printable(_ name: String) -> String {
        let shown = name.unicodeScalars.prefix(40).map { scalar in
            scalar.isASCII && scalar.value >= 0x20 && scalar.value < 0x7F ? String(scalar) : "\\u{\(String(scalar.value, radix: 16))}"
        }
        return "`" + shown.joined() + "`"
    }

    /// The actor name for the audit log.
    /// - Throws: `APIError.unauthorized` for a missing or wrong token (also when none is configured).
    func authenticate(_ request: HTTPRequest) throws -> String {
        guard let header = request.headers["Authorization"], header.count > 7,
            header.prefix(7).lowercased() == "bearer "
        else {
            throw APIError.unauthorized("Send an admin token as Authorization: Bearer <token>.")
        }
        let token = header.dropFirst(7).trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty, let digest = try? SHA256.hash(Array(token.utf8)) else {
            throw APIError.unauthorized("Send an admin token as Authorization: Bearer <token>.")
        }
        guard KeyList.contains(hashes, digest) else { throw APIError.unauthorized("The admin token is not valid.") }
        let hex = Hex.encode(digest)
        return names[hex] ?? "admin:" + hex.prefix(8)
    }
}
