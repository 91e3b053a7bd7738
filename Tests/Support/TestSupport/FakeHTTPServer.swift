import Foundation
import Glibc
import HTTPCore
import HTTPRouting
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
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0, maxBodyBytes: 16 << 20)
        // A fake stands in for another host: its answers must not wait behind the work of the
        // hundreds of tests sharing this process's thread pool (a real Stripe would not).
        configuration.connectionPriority = .high
        server = HTTPServer(configuration: configuration, responder: responder, logger: .disabled)
        try server.start()
    }

    /// Every request received so far, in order.
    public var requests: [HTTPRequest] { responder.requests.withLock { $0 } }

    /// Stops serving. The port stays reserved (bound, not listening) for the life of this
    /// object, so a test that stops a fake to simulate an outage gets "connection refused"
    /// rather than another test's server that happened to get the same free port.
    public func stop() async {
        let port = server.port
        await server.shutdown()
        reservation.withLock { $0 = PortReservation.hold(port) }
    }

    private let reservation = Mutex<PortReservation?>(nil)
}

/// A TCP socket bound to a loopback port without listening: connections to it are refused.
private final class PortReservation: Sendable {
    let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    static func hold(_ port: Int) -> PortReservation? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            close(descriptor)
            return nil
        }
        return PortReservation(descriptor: descriptor)
    }

    deinit { close(descriptor) }
}

private final class RecordingResponder: HTTPResponder {
    let handler: @Sendable (HTTPRequest) async -> HTTPResponse
    let requests = Mutex<[HTTPRequest]>([])

    init(handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) { self.handler = handler }

    func respond(to request: HTTPRequest, plan: RoutePlan, info: RequestInfo) async -> HTTPResponse {
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
