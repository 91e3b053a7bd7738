import Crypto
import Foundation
import HTTPCore
import HTTPRouting
import Synchronization

/// An app backend receiving Tollgate's events on loopback. It verifies each request as the
/// Standard Webhooks specification says, written here independently of Tollgate's signer:
/// base64-decode the key after `whsec_`, HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}`,
/// compare with each `v1,` signature of `webhook-signature`. `answer` decides each reply from the
/// request's number (0-based), e.g. 500 for the first few.
public final class FakeEventReceiver: Sendable {
    /// One request as received.
    public struct Received: Sendable {
        public let webhookID: String
        public let timestamp: Int
        public let body: [UInt8]
        /// Whether the signature verified with the receiver's secret.
        public let verified: Bool
        /// What this receiver answered.
        public let status: Int

        /// The body as JSON.
        public var json: [String: Any] { ((try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]) ?? [:] }
        public var type: String { json["type"] as? String ?? "" }
        public var id: String { json["id"] as? String ?? "" }
        public var data: [String: Any] { json["data"] as? [String: Any] ?? [:] }
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// What was received (a class: a Mutex cannot be captured by the handler itself).
    private final class Log: Sendable {
        let items = Mutex<[Received]>([])
        let count = Atomic<Int>(0)
    }

    private let server: FakeHTTPServer
    private let log = Log()

    public var baseURL: String { server.baseURL }
    public var url: String { server.baseURL + "/tollgate/events" }

    /// - Parameter answer: the status (and a delay before it) for the n-th request.
    public init(secret: String, answer: @escaping @Sendable (Int) -> (status: Int, delay: Duration) = { _ in (200, .zero) }) throws {
        let key = try Base64.decode(String(secret.dropFirst("whsec_".count)))
        let log = self.log
        server = try FakeHTTPServer { request in
            let index = log.count.wrappingAdd(1, ordering: .relaxed).oldValue
            let (status, delay) = answer(index)
            let id = request.headers["webhook-id"] ?? ""
            let timestampText = request.headers["webhook-timestamp"] ?? ""
            let signatures = (request.headers["webhook-signature"] ?? "").split(separator: " ")
            var content = Array("\(id).\(timestampText).".utf8)
            content.append(contentsOf: request.body)
            let expected = (try? HMACSHA256.authenticationCode(for: content, key: key)).map { "v1," + Base64.encode($0) } ?? "?"
            let verified = signatures.contains { $0 == expected }
            if delay > .zero { try? await Task.sleep(for: delay) }
            log.items.withLock {
                $0.append(Received(webhookID: id, timestamp: Int(timestampText) ?? 0, body: request.body, verified: verified, status: status))
            }
            return HTTPResponse.fakeJSON(["ok": status < 300], status: HTTPStatus(code: status))
        }
    }

    /// Every request so far, in arrival order.
    public var received: [Received] { log.items.withLock { $0 } }

    /// The requests answered 2xx, one per event id (the first), in arrival order.
    public var accepted: [Received] {
        var seen = Set<String>()
        return received.filter { $0.status < 300 && seen.insert($0.webhookID).inserted }
    }

    /// Waits until `condition` holds for what was received, or `timeout` passes; returns whether it held.
    /// The default is generous: a full parallel test run can delay deliveries by tens of seconds.
    public func wait(timeout: Duration = .seconds(90), until condition: @Sendable ([Received]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(received) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition(received)
    }

    public func stop() async { await server.stop() }
}
