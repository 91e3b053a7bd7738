import Foundation
import Glibc
import Synchronization
import TestSupport

/// A webhook storm as Stripe sends one: signed deliveries POSTed by a few concurrent senders,
/// each delivery on a new connection (connect, send, read the answer, close). A sender that
/// gets no answer within `patience` gives up on that connection (closes it) and sends the
/// delivery again on a new one, as Stripe retries.
struct WebhookStorm {
    /// One delivery: its body and `Stripe-Signature`.
    typealias Delivery = (body: [UInt8], signatureHeader: String)

    /// What the senders saw.
    struct Outcome: Sendable {
        /// Answers by status code (0: the connection failed or closed without an answer).
        var statuses: [Int: Int] = [:]
        /// The same, port by port.
        var statusesByPort: [Int: [Int: Int]] = [:]
        /// The bodies of 5xx answers, port by port.
        var serverErrorsByPort: [Int: [String]] = [:]
        /// Connections given up on without an answer (`patience` passed).
        var timeouts = 0
        /// Deliveries never answered 200 within the attempts allowed.
        var undelivered = 0
        /// When the last sender finished.
        var finished = Date.distantPast
        /// The most connections the senders held at once.
        var mostHeld = 0
    }

    let senders: Int
    let patience: TimeInterval
    let attempts: Int

    /// Sends every delivery, delivery `i` by sender `i % senders` to `ports[i % ports.count]`;
    /// returns once all senders are done.
    func run(_ deliveries: [Delivery], ports: [Int]) async -> Outcome {
        let held = Held()
        var total = await withTaskGroup(of: Outcome.self) { group in
            for sender in 0..<senders {
                let mine = stride(from: sender, to: deliveries.count, by: senders).map { ($0, deliveries[$0]) }
                group.addTask {
                    await offPool { send(mine, ports: ports, held: held) }
                }
            }
            var total = Outcome()
            for await outcome in group {
                for (status, count) in outcome.statuses { total.statuses[status, default: 0] += count }
                for (port, statuses) in outcome.statusesByPort {
                    for (status, count) in statuses { total.statusesByPort[port, default: [:]][status, default: 0] += count }
                }
                for (port, bodies) in outcome.serverErrorsByPort { total.serverErrorsByPort[port, default: []] += bodies }
                total.timeouts += outcome.timeouts
                total.undelivered += outcome.undelivered
                total.finished = max(total.finished, outcome.finished)
            }
            return total
        }
        total.mostHeld = held.most
        return total
    }

    /// One sender, on a thread of its own: blocking sockets, one delivery at a time.
    private func send(_ deliveries: [(Int, Delivery)], ports: [Int], held: Held) -> Outcome {
        var outcome = Outcome()
        for (index, delivery) in deliveries {
            // Each sender turns from port to port: every instance sees every sender.
            let port = ports[(index / senders) % ports.count]
            var delivered = false
            for _ in 0..<attempts where !delivered {
                switch Self.post(delivery, port: port, patience: patience, held: held) {
                case .answered(let status, let body):
                    outcome.count(status, port: port)
                    if status >= 500 { outcome.serverErrorsByPort[port, default: []].append(body) }
                    delivered = status == 200
                case .timedOut:
                    outcome.timeouts += 1
                case .failed:
                    outcome.count(0, port: port)
                }
            }
            if !delivered { outcome.undelivered += 1 }
        }
        outcome.finished = Date()
        return outcome
    }

    private enum Attempt { case answered(Int, body: String), timedOut, failed }

    /// One delivery on a new connection to 127.0.0.1:`port`, closed before returning.
    private static func post(_ delivery: Delivery, port: Int, patience: TimeInterval, held: Held) -> Attempt {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return .failed }
        held.open()
        defer {
            close(fd)
            held.closed()
        }
        var timeout = timeval(tv_sec: Int(patience), tv_usec: Int((patience - patience.rounded(.down)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return .failed }
        let head =
            "POST /webhooks/stripe HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUser-Agent: Stripe/1.0 (+https://stripe.com/docs/webhooks)\r\n"
            + "Content-Type: application/json; charset=utf-8\r\nStripe-Signature: \(delivery.signatureHeader)\r\n"
            + "Content-Length: \(delivery.body.count)\r\n\r\n"
        let request = Array(head.utf8) + delivery.body
        var offset = 0
        while offset < request.count {
            let sent = request[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return errno == EAGAIN ? .timedOut : .failed }
            offset += sent
        }
        // The answer: a head, then Content-Length bytes.
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            if let answer = Self.answer(in: received) { return .answered(answer.status, body: answer.body) }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += buffer[..<count]
            } else if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                return .timedOut
            } else {
                return .failed
            }
        }
    }

    /// The status and body of the whole answer in `bytes`, or nil while it is incomplete.
    private static func answer(in bytes: [UInt8]) -> (status: Int, body: String)? {
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        guard let headEnd = bytes.indices.dropLast(3).first(where: { Array(bytes[$0..<($0 + 4)]) == end }) else { return nil }
        let head = String(decoding: bytes[..<headEnd], as: UTF8.self).lowercased()
        let lines = head.split(separator: "\r\n")
        guard let statusLine = lines.first, let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") else {
            return (0, "")
        }
        let length =
            lines.lazy.compactMap { line -> Int? in
                line.hasPrefix("content-length:") ? Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) : nil
            }.first ?? 0
        guard bytes.count >= headEnd + 4 + length else { return nil }
        return (status, String(decoding: bytes[(headEnd + 4)...], as: UTF8.self))
    }
}

extension WebhookStorm.Outcome {
    fileprivate mutating func count(_ status: Int, port: Int) {
        statuses[status, default: 0] += 1
        statusesByPort[port, default: [:]][status, default: 0] += 1
    }
}

/// How many connections the senders hold, and the most at once.
private final class Held: Sendable {
    private let counts = Mutex((now: 0, most: 0))

    func open() {
        counts.withLock {
            $0.now += 1; $0.most = max($0.most, $0.now)
        }
    }

    func closed() { counts.withLock { $0.now -= 1 } }

    var most: Int { counts.withLock { $0.most } }
}
