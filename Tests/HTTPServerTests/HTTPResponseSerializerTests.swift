import Testing
@testable import HTTPCore

/// The bytes a response becomes, written out by hand: the server's own fields, the fields a
/// handler may not send, HEAD and bodiless statuses, and heads far larger than usual (the
/// serializer sizes its buffer before writing).
@Suite("Response serialization")
struct HTTPResponseSerializerTests {
    static let date = Array("Fri, 27 Nov 2026 22:00:00 GMT".utf8)

    static func text(_ response: HTTPResponse, keepAlive: Bool = true, minorVersion: Int = 1, head: Bool = false) -> (String, Bool) {
        let (bytes, separate) = HTTPResponseSerializer.serialize(
            response, requestId: "req-1", keepAlive: keepAlive, minorVersion: minorVersion, isHeadRequest: head, date: date)
        return (String(decoding: bytes, as: UTF8.self), separate)
    }

    @Test("A small answer: status line, the handler's fields in order, then Content-Length, Date, X-Request-Id, the body")
    func plain() {
        let response = HTTPResponse(
            status: .ok, headers: ["Content-Type": "text/plain", "Cache-Control": "no-store"], body: Array("hello".utf8))
        #expect(
            Self.text(response)
                == (
                    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nCache-Control: no-store\r\nContent-Length: 5\r\n"
                        + "Date: Fri, 27 Nov 2026 22:00:00 GMT\r\nX-Request-Id: req-1\r\n\r\nhello", false
                ))
    }

    @Test("Fields the server owns are its own; a field with CR, LF or NUL is left out whole; a TAB passes")
    func managedAndUnsafeFields() {
        let response = HTTPResponse(
            status: HTTPStatus(code: 200, reasonPhrase: "Fine\r\nX-Evil: 1"),
            headers: HTTPHeaders([
                (name: "date", value: "yesterday"), (name: "Connection", value: "upgrade"), (name: "X-Request-Id", value: "mine"),
                (name: "Transfer-Encoding", value: "chunked"), (name: "X-Split", value: "a\r\nSet-Cookie: x=1"),
                (name: "X-Nul\u{0}", value: "v"), (name: "X-Tab", value: "a\tb"), (name: "X-Kept", value: "yes")
            ]), body: [])
        let (text, _) = Self.text(response, keepAlive: false)
        #expect(
            text
                == "HTTP/1.1 200 FineX-Evil: 1\r\nX-Tab: a\tb\r\nX-Kept: yes\r\nContent-Length: 0\r\n"
                + "Date: Fri, 27 Nov 2026 22:00:00 GMT\r\nX-Request-Id: req-1\r\nConnection: close\r\n\r\n")
    }

    @Test("HEAD keeps the length the handler declared; 204 has none; HTTP/1.0 is told keep-alive")
    func headAndBodiless() {
        let declared = HTTPResponse(status: .ok, headers: ["Content-Length": "1234"], body: [])
        #expect(Self.text(declared, head: true).0.contains("\r\nContent-Length: 1234\r\n"))
        let withBody = HTTPResponse(status: .ok, body: Array("abc".utf8))
        let (head, separate) = Self.text(withBody, head: true)
        #expect(head.hasSuffix("Content-Length: 3\r\nDate: Fri, 27 Nov 2026 22:00:00 GMT\r\nX-Request-Id: req-1\r\n\r\n") && !separate)
        let empty = HTTPResponse(status: .noContent, body: [])
        #expect(!Self.text(empty).0.contains("Content-Length"))
        #expect(Self.text(withBody, minorVersion: 0).0.contains("X-Request-Id: req-1\r\nConnection: keep-alive\r\n\r\nabc"))
    }

    @Test("A large body goes separately; a head of 200 long fields is written whole")
    func largeBodiesAndHeads() {
        let body = [UInt8](repeating: UInt8(ascii: "b"), count: HTTPResponseSerializer.inlineBodyLimit + 1)
        let (head, separate) = Self.text(HTTPResponse(status: .ok, body: body))
        #expect(separate && head.hasSuffix("Content-Length: \(body.count)\r\nDate: Fri, 27 Nov 2026 22:00:00 GMT\r\nX-Request-Id: req-1\r\n\r\n"))

        var headers = HTTPHeaders()
        var expected = ""
        for index in 0..<200 {
            let value = String(repeating: "v", count: index * 7)
            headers.add("X-Field-\(index)", value)
            expected += "X-Field-\(index): \(value)\r\n"
        }
        let (text, _) = Self.text(HTTPResponse(status: .ok, headers: headers, body: Array("x".utf8)))
        #expect(
            text
                == "HTTP/1.1 200 OK\r\n" + expected
                + "Content-Length: 1\r\nDate: Fri, 27 Nov 2026 22:00:00 GMT\r\nX-Request-Id: req-1\r\n\r\nx")
    }
}
