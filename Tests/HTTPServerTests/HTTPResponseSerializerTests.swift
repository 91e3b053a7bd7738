import Testing
@testable import HTTPCore

/// The bytes a response becomes, written out by hand: the server's own fields, the fields a
/// handler may not send, HEAD and bodiless statuses, and heads far larger than usual (the
/// serializer sizes its buffer before writing).
@Suite("Response serialization")
struct HTTPResponseSerializerTests {
    static let date = Array("Fri, 27 Nov 2026 22:00:00 GMT".utf8)

    /// The bytes on the wire (the head, then the body when it follows), and whether it follows.
    static func text(_ response: HTTPResponse, keepAlive: Bool = true, minorVersion: Int = 1, head: Bool = false) -> (String, Bool) {
        let (bytes, sendsBody) = HTTPResponseSerializer.serialize(
            response, requestId: "req-1", keepAlive: keepAlive, minorVersion: minorVersion, isHeadRequest: head, date: date)
        return (String(decoding: bytes + (sendsBody ? response.body : []), as: UTF8.self), sendsBody)
    }

    @Test("A small answer: status line, the handler's fields in order, then Content-Length, Date, X-Request-Id, the body")
    func plain() {
        let response = HTTPResponse(
            status: .ok, headers: ["Content-Type": "text/plain", "Cache-Control": "no-store"], body: Array("hello".utf8))
        #expect(
            Self.text(response)
                == (
                    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nCache-Control: no-store\r\nContent-Length: 5\r\n"
                        + "Date: Fri, 27 Nov 2026 22:00:00 GMT\r\nX-Request-Id: req-1\r\n\r\nhello", true
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

    @Test("No body is copied behind the head, small or large; a head of 200 long fields is written whole")
    func bodiesStaySeparateAndLargeHeads() {
        for size in [1, 1_200, 20_000] {
            let body = [UInt8](repeating: UInt8(ascii: "b"), count: size)
            let (head, sendsBody) = HTTPResponseSerializer.serialize(
                HTTPResponse(status: .ok, body: body), requestId: "req-1", keepAlive: true, minorVersion: 1, isHeadRequest: false,
                date: Self.date)
            #expect(sendsBody)
            #expect(
                String(decoding: head, as: UTF8.self)
                    == "HTTP/1.1 200 OK\r\nContent-Length: \(size)\r\nDate: Fri, 27 Nov 2026 22:00:00 GMT\r\nX-Request-Id: req-1\r\n\r\n")
        }

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

    static let mixedFields = HTTPHeaders([
        (name: "Content-Type", value: "text/html"), (name: "date", value: "yesterday"), (name: "Content-Length", value: "77"),
        (name: "X-Split", value: "a\r\nSet-Cookie: x=1"), (name: "X-Tab", value: "a\tb"), (name: "Connection", value: "Keep-Alive, close"),
        (name: "Cache-Control", value: "no-store")
    ])

    @Test("Prepared fields go out byte for byte as the same fields unprepared (GET, HEAD, closing or not)")
    func preparedFieldsAreTheSameBytes() {
        var prepared = HTTPResponse(status: .ok, headers: Self.mixedFields, body: Array("page".utf8))
        prepared.headers.prepare(tag: "test")
        #expect(prepared.headers.isPrepared(tag: "test") && !prepared.headers.isPrepared(tag: "other"))
        let plain = HTTPResponse(status: .ok, headers: Self.mixedFields, body: Array("page".utf8))
        for (keepAlive, head) in [(true, false), (false, false), (true, true)] {
            #expect(Self.text(prepared, keepAlive: keepAlive, head: head) == Self.text(plain, keepAlive: keepAlive, head: head))
        }
        #expect(HTTPResponseSerializer.requestsClose(prepared) && HTTPResponseSerializer.requestsClose(plain))
        var headOnly = HTTPResponse(status: .ok, headers: Self.mixedFields, body: [])
        headOnly.headers.prepare(tag: "test")
        #expect(Self.text(headOnly, head: true).0.contains("\r\nContent-Length: 77\r\n"))
    }

    @Test("Any change to prepared fields drops their wire form, so the change goes out; setting what is there keeps it")
    func changesDropThePreparedForm() {
        var base = HTTPResponse(status: .ok, headers: ["Content-Type": "text/plain", "X-One": "1"], body: Array("x".utf8))
        base.headers.prepare(tag: "test")

        var same = base
        same.headers.set("X-One", "1")
        #expect(same.headers.isPrepared(tag: "test"))

        var changed = base
        changed.headers.set("X-One", "2")
        #expect(!changed.headers.isPrepared(tag: "test") && Self.text(changed).0.contains("\r\nX-One: 2\r\n"))

        var added = base
        added.headers.add("Connection", "close")
        #expect(!added.headers.isPrepared(tag: "test") && HTTPResponseSerializer.requestsClose(added))
        #expect(!HTTPResponseSerializer.requestsClose(base))

        var removed = base
        removed.headers.remove("X-One")
        #expect(!removed.headers.isPrepared(tag: "test") && !Self.text(removed).0.contains("X-One"))
        // The shared original is untouched by its copies' changes.
        #expect(base.headers.isPrepared(tag: "test") && Self.text(base).0.contains("\r\nX-One: 1\r\n"))
    }
}
