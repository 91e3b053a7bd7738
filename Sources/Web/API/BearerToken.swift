import HTTPCore
import HTTPRouting

/// The app's `Authorization: Bearer <access_token>`, read from the request; the use cases
/// check it in their transaction (`BearerSession`).
enum BearerToken {
    /// The token, if the request carries one.
    /// - Throws: `APIError.unauthorized` for a malformed `Authorization` header.
    static func read(_ request: HTTPRequest) throws -> String? {
        guard let header = request.headers["Authorization"] else { return nil }
        guard header.count > 7, header.prefix(7).lowercased() == "bearer " else {
            throw APIError.unauthorized("Authorization must be Bearer <access_token>.")
        }
        return String(header.dropFirst(7))
    }
}
