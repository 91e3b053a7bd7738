import Foundation
import HTTPServer
import Logging
import Synchronization

/// A real HTTP server on a loopback port, answering with a closure: the fake Stripe, Apple
/// and Google APIs of the tests speak their wire format through it. It records every
/// request it received.
public final class FakeHTTPServer: Sendable {
    private let server: HTTPServer
    private let responder: RecordingResponder

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    public var baseURL: String { "http://127.0.0.1:\(server.port)" }
    public var port: Int { server.port }

    /// Starts at once on a free port.
    /// - Throws: `HTTPServerError` when no port can be bound.
    public init(_ handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) throws {
        responder = RecordingResponder(handler: handler)
        server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, maxBodyBytes: 16 << 20),
            responder: responder, logger: .disabled)
        try server.start()
    }

    /// Every request received so far, in order.
    public var requests: [HTTPRequest] { responder.requests.withLock { $0 } }

    public func stop() async { await server.shutdown() }
}

private final class RecordingResponder: HTTPResponder {
    let handler: @Sendable (HTTPRequest) async -> HTTPResponse
    let requests = Mutex<[HTTPRequest]>([])

    init(handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) { self.handler = handler }

    func respond(to request: HTTPRequest, context: RequestContext) async -> HTTPResponse {
        requests.withLock { $0.append(request) }
        return await handler(request)
    }
}

extension HTTPResponse {
    /// A JSON response from a JSON-serializable value (fakes answer like the real APIs).
    public static func fakeJSON(_ object: Any, status: HTTPStatus = .ok) -> HTTPResponse {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Array(data))
    }
}
