import Foundation
import Synchronization

/// A loopback HTTP proxy in front of the live service that misbehaves on purpose, one step per
/// connection: it drops connections without answering (before or after the service did the
/// work), answers `503` / `429` itself, then forwards. It records every request it received, so
/// a test can see which headers each attempt carried.
final class FlakyProxy: Sendable {
    /// What the proxy does with one connection.
    enum Step: Sendable {
        /// Reads the request and closes the connection: the service never sees it.
        case drop
        /// Forwards the request, lets the service answer, and closes without passing the answer
        /// on: the work is done but the client never hears of it.
        case forwardThenDrop
        /// Answers itself with `status`, API.md's error body and `headers` (e.g. `Retry-After`).
        case answer(status: Int, headers: [String: String])
        /// Forwards the request and passes the answer back.
        case forward
    }

    /// One request as the proxy received it.
    struct Received: Sendable {
        let requestLine: String
        /// Header names lower-cased.
        let headers: [String: String]
        /// The step applied to it.
        let step: Step
        /// The service's status line and headers, when it was forwarded.
        let upstreamHead: String?
        let receivedAt: ContinuousClock.Instant
    }

    struct State {
        var steps: [Step]
        var received: [Received] = []
    }

    let upstreamPort: Int
    let state: Mutex<State>
    let listener: Int32
    let port: Int

    /// `http://127.0.0.1:PORT`.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Every request so far, in order.
    var received: [Received] { state.withLock { $0.received } }

    /// Listens on a free loopback port at once; `steps` apply to the first connections, in
    /// order, and every later connection is forwarded.
    /// - Throws: `ProxyError` when no port can be bound.
    init(upstreamPort: Int, steps: [Step]) throws {
        self.upstreamPort = upstreamPort
        state = Mutex(State(steps: steps))
        (listener, port) = try Self.listen()
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "FlakyProxy"
        thread.start()
    }

    /// Stops accepting (the accept loop ends); call once, when the test is done.
    func stop() { Self.closeListener(listener) }

    /// The step for the next connection.
    func nextStep() -> Step {
        state.withLock { $0.steps.isEmpty ? .forward : $0.steps.removeFirst() }
    }

    func record(_ received: Received) {
        state.withLock { $0.received.append(received) }
    }

    /// Handles one accepted connection, start to close.
    func serve(_ connection: Int32) {
        guard let request = Self.readRequest(connection) else { return }
        let step = nextStep()
        var upstreamHead: String?
        var reply: [UInt8]?
        switch step {
        case .drop:
            break
        case .forwardThenDrop, .forward:
            let answer = forward(request.bytes)
            upstreamHead = answer.flatMap { Self.head(of: $0) }
            if case .forward = step { reply = answer }
        case .answer(let status, let headers):
            let body =
                #"{"error":{"code":"\#(status == 429 ? "rate_limited" : "upstream_unavailable")","message":"The proxy says \#(status).","retryable":true}}"#
            var head = "HTTP/1.1 \(status) Proxy\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            reply = Array((head + "\r\n" + body).utf8)
        }
        // Recorded before the client can hear anything, so a test that got its answer sees every attempt.
        record(Received(requestLine: request.line, headers: request.headers, step: step, upstreamHead: upstreamHead, receivedAt: .now))
        if let reply { Self.write(reply, to: connection) }
    }

    /// The request with `Connection: close`, sent to the service; its whole answer.
    func forward(_ request: [UInt8]) -> [UInt8]? {
        guard let upstream = Self.connect(port: upstreamPort) else { return nil }
        defer { Self.closeSocket(upstream) }
        Self.write(Self.withConnectionClose(request), to: upstream)
        return Self.readToEnd(upstream)
    }

    /// The request line and headers of a raw request, and its bytes.
    struct RawRequest {
        let line: String
        let headers: [String: String]
        let bytes: [UInt8]
    }

    static func parseHead(_ bytes: [UInt8]) -> (line: String, headers: [String: String], headLength: Int)? {
        let marker: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = (0...max(0, bytes.count - 4)).first(where: { bytes.count >= $0 + 4 && Array(bytes[$0..<$0 + 4]) == marker }) else {
            return nil
        }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (lines.first ?? "", headers, end + 4)
    }

    static func head(of response: [UInt8]) -> String? {
        guard let parsed = parseHead(response) else { return nil }
        return String(decoding: response[..<parsed.headLength], as: UTF8.self)
    }

    /// Replaces any `Connection` header with `Connection: close`, so the service closes after answering.
    static func withConnectionClose(_ request: [UInt8]) -> [UInt8] {
        guard let parsed = parseHead(request) else { return request }
        let lines = String(decoding: request[..<(parsed.headLength - 4)], as: UTF8.self).components(separatedBy: "\r\n")
        let kept = lines.filter { !$0.lowercased().hasPrefix("connection:") } + ["Connection: close"]
        return Array((kept.joined(separator: "\r\n") + "\r\n\r\n").utf8) + request[parsed.headLength...]
    }
}

struct ProxyError: Error, CustomStringConvertible {
    let description: String
}
