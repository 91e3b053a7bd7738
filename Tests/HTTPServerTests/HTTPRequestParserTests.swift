import Testing
@testable import HTTPCore
@testable import HTTPRouting

/// Feeds bytes straight into `HTTPRequestParser`, including every possible split point.
@Suite struct HTTPRequestParserTests {
    private static let limits = HTTPRequestParser.Limits(HTTPServerConfiguration())

    /// Drives the parser like a connection does: head, then body, feeding `chunks` in order.
    private static func parse(
        _ chunks: [[UInt8]], limits: HTTPRequestParser.Limits = limits, bodyLimit: Int = 1 << 20
    ) throws(HTTPParseError) -> [(HTTPRequestHead, [UInt8])] {
        var parser = HTTPRequestParser(limits: limits)
        var buffer = ByteBuffer()
        var results: [(HTTPRequestHead, [UInt8])] = []
        var head: HTTPRequestHead?
        for chunk in chunks {
            buffer.append(chunk)
            while true {
                if head == nil {
                    guard let parsed = try parser.parseHead(&buffer) else { break }
                    try parser.beginBody(for: parsed, limit: bodyLimit)
                    head = parsed
                }
                guard let current = head, let body = try parser.parseBody(&buffer) else { break }
                results.append((current, body))
                head = nil
            }
        }
        return results
    }

    private static func error(of raw: String, bodyLimit: Int = 1 << 20) -> HTTPParseError? {
        do {
            _ = try parse([Array(raw.utf8)], bodyLimit: bodyLimit)
            return nil
        } catch {
            return error
        }
    }

    static let sample = Array(
        "POST /submit?x=1 HTTP/1.1\r\nHost: example.test\r\nX-Request-Id: abc-123\r\nContent-Length: 11\r\n\r\nhello world".utf8
    )

    @Test func splitAtEveryBytePositionGivesTheSameRequest() throws {
        for split in 0...Self.sample.count {
            let results = try Self.parse([Array(Self.sample[..<split]), Array(Self.sample[split...])])
            try #require(results.count == 1, "split at \(split)")
            let (head, body) = results[0]
            #expect(head.method == .post)
            #expect(head.target == "/submit?x=1")
            #expect(head.path == "/submit")
            #expect(head.headers["host"] == "example.test")
            #expect(head.requestId == "abc-123")
            #expect(head.contentLength == 11)
            #expect(String(decoding: body, as: UTF8.self) == "hello world")
        }
    }

    @Test func oneByteAtATime() throws {
        let results = try Self.parse(Self.sample.map { [$0] })
        #expect(results.count == 1)
        #expect(results.first.map { String(decoding: $0.1, as: UTF8.self) } == "hello world")
    }

    @Test func chunkedBodySplitAtEveryBytePosition() throws {
        let raw = Array(
            "PUT /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nTrailer: x\r\n\r\n".utf8
        )
        for split in 0...raw.count {
            let results = try Self.parse([Array(raw[..<split]), Array(raw[split...])])
            try #require(results.count == 1, "split at \(split)")
            #expect(results[0].0.isChunked)
            #expect(String(decoding: results[0].1, as: UTF8.self) == "hello world")
        }
    }

    @Test func pipelinedRequestsComeOutInOrder() throws {
        let raw = "GET /1 HTTP/1.1\r\nHost: h\r\n\r\nGET /2 HTTP/1.1\r\nHost: h\r\n\r\nGET /3 HTTP/1.0\r\n\r\n"
        let results = try Self.parse([Array(raw.utf8)])
        #expect(results.map(\.0.target) == ["/1", "/2", "/3"])
        #expect(results.map(\.0.keepAlive) == [true, true, false])
    }

    @Test func keepAliveRules() throws {
        let cases: [(String, Bool)] = [
            ("GET / HTTP/1.1\r\nHost: h\r\n\r\n", true),
            ("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", false),
            ("GET / HTTP/1.0\r\n\r\n", false),
            ("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", true),
            ("GET / HTTP/1.1\r\nHost: h\r\nConnection: upgrade, CLOSE\r\n\r\n", false)
        ]
        for (raw, expected) in cases {
            let results = try Self.parse([Array(raw.utf8)])
            #expect(results.first?.0.keepAlive == expected, "\(raw.debugDescription)")
        }
    }

    @Test(arguments: [
        ("GET / HTTP/1.1\nHost: h\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: h\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost : h\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n  folded\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx", 400),
        ("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 1, 2\r\n\r\nx", 400),
        ("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 1x\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999999\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
        ("G@T / HTTP/1.1\r\nHost: h\r\n\r\n", 400),
        ("GET /a b HTTP/1.1\r\nHost: h\r\n\r\n", 400),
        ("GET http://h/ HTTP/1.1\r\nHost: h\r\n\r\n", 400),
        ("GET * HTTP/1.1\r\nHost: h\r\n\r\n", 400),
        ("GET /\u{7F} HTTP/1.1\r\nHost: h\r\n\r\n", 400),
        ("GET /é HTTP/1.1\r\nHost: h\r\n\r\n", 400),
        ("GET / HTTP/2.0\r\nHost: h\r\n\r\n", 505),
        ("GET / HTTX/1.1\r\nHost: h\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: h\r\nX: a\u{0}b\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: h\r\nX: a\rb\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: h\r\nBad[Name]: v\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\nabc\r\n", 400)
    ])
    func rejectsMalformedInput(raw: String, status: Int) {
        #expect(Self.error(of: raw)?.status.code == status, "\(raw.debugDescription)")
    }

    @Test func acceptsOptionsAsteriskAndRepeatedEqualLengthsInOneField() throws {
        let results = try Self.parse([Array("OPTIONS * HTTP/1.1\r\nHost: h\r\nContent-Length: 2, 2\r\n\r\nok".utf8)])
        #expect(results.first?.0.target == "*")
        #expect(results.first.map { String(decoding: $0.1, as: UTF8.self) } == "ok")
    }

    @Test func limitsRejectBeforeTheLineEnds() throws {
        var limits = Self.limits
        limits.maxRequestLineBytes = 32
        limits.maxHeaderLineBytes = 32
        limits.maxHeaderBytes = 64
        limits.maxHeaderCount = 3
        func status(_ raw: String) -> Int? {
            do {
                _ = try Self.parse([Array(raw.utf8)], limits: limits)
                return nil
            } catch {
                return error.status.code
            }
        }
        // No CRLF yet: the parser must not wait for the end of an oversized line.
        #expect(status("GET /" + String(repeating: "a", count: 40)) == 414)
        #expect(status("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 40)) == 431)
        #expect(status("GET / HTTP/1.1\r\nA: 12345678901234567890\r\nB: 12345678901234567890\r\nC: 12345678901234567890\r\n") == 431)
        #expect(status("GET / HTTP/1.1\r\nA: 1\r\nB: 1\r\nC: 1\r\nD: 1\r\n") == 431)
        #expect(status("GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 1\r\n\r\n") == nil)
    }

    @Test func bodyLimits() {
        #expect(Self.error(of: "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n", bodyLimit: 10)?.status.code == 413)
        #expect(Self.error(of: "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n0123456789", bodyLimit: 10) == nil)
        // Chunked: rejected as soon as the running total passes the limit, before the data arrives.
        #expect(
            Self.error(of: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n5\r\n", bodyLimit: 10)?.status.code == 413)
        #expect(Self.error(of: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFF\r\n")?.status.code == 400)
        let manyTrailers = (0..<101).map { "T\($0): x\r\n" }.joined()
        #expect(Self.error(of: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n" + manyTrailers)?.status.code == 431)
    }

    @Test func expectContinueAndRequestIdAreReported() throws {
        let raw = "POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-Continue\r\nX-Request-Id: r1\r\nContent-Length: 1\r\n\r\nx"
        let head = try #require(try Self.parse([Array(raw.utf8)]).first?.0)
        #expect(head.expectsContinue)
        #expect(head.requestId == "r1")
        #expect(!HTTPSyntax.isValidRequestId("bad id"))
        #expect(!HTTPSyntax.isValidRequestId(String(repeating: "a", count: 129)))
        #expect(HTTPSyntax.isValidRequestId("Ab0._:-"))
    }
}
