import Glibc
import Testing

@testable import HTTPCore

/// A response goes out as its head and its body, two buffers in one `sendmsg`
/// (`HTTPConnection.sendRemaining`); after a partial send, what is left of either is sent, in
/// order, from wherever the last send stopped.
@Suite("Sending a head and a body")
struct HTTPConnectionSendTests {
    static let head = Array("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n".utf8)
    static let body = Array("0123456789".utf8)

    /// What one `sendRemaining` call after `skipping` bytes puts on a fresh socket pair.
    static func received(skipping: Int, head: [UInt8] = head, body: [UInt8] = body) -> (sent: Int, bytes: [UInt8]) {
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { return (-1, []) }
        defer {
            close(pair[0])
            close(pair[1])
        }
        let sent = head.withUnsafeBytes { a in
            body.withUnsafeBytes { b in HTTPConnection.sendRemaining(of: a, then: b, skipping: skipping, to: pair[0]) }
        }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = sent > 0 ? recv(pair[1], &buffer, buffer.count, Int32(MSG_DONTWAIT)) : 0
        return (sent, Array(buffer.prefix(max(0, count))))
    }

    @Test("From any point, in the head, at its end, inside the body, the rest goes out in order")
    func restFromAnyPoint() {
        let wire = Self.head + Self.body
        for skipping in [0, 1, Self.head.count - 3, Self.head.count, Self.head.count + 4, wire.count - 1] {
            let (sent, bytes) = Self.received(skipping: skipping)
            #expect(sent == wire.count - skipping, "skipping \(skipping)")
            #expect(bytes == Array(wire[skipping...]), "skipping \(skipping)")
        }
    }

    @Test("A response without a body is its head alone")
    func headAlone() {
        let (sent, bytes) = Self.received(skipping: 5, body: [])
        #expect(sent == Self.head.count - 5 && bytes == Array(Self.head[5...]))
    }

    @Test("A closed socket is an error number, not bytes sent")
    func closedSocket() {
        let sent = Self.head.withUnsafeBytes { a in
            Self.body.withUnsafeBytes { b in HTTPConnection.sendRemaining(of: a, then: b, skipping: 0, to: -1) }
        }
        #expect(sent == -Int(EBADF))
    }
}
