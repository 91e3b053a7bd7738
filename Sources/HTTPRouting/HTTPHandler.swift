import HTTPCore
/// Handles one request. Thrown errors that conform to `HTTPResponseError` become their
/// response; anything else is logged and becomes a bare 500.
public protocol HTTPHandler: Sendable {
    /// - Throws: an `HTTPResponseError` for a client-visible failure, anything else for a 500.
    func handle(_ request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse
}

/// Adapts a closure to `HTTPHandler`.
public struct ClosureHandler: HTTPHandler {
    private let body: @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse

    public init(_ body: @escaping @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse) {
        self.body = body
    }

    public func handle(_ request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse {
        try await body(request, context)
    }
}

/// An error that knows how it looks at the HTTP boundary.
public protocol HTTPResponseError: Error {
    var status: HTTPStatus { get }
    /// A machine-readable code, e.g. `bad_request`.
    var code: String { get }
    /// A sentence a user can act on. Never holds secrets.
    var message: String { get }
}
