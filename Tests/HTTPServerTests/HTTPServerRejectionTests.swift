import Testing
@testable import HTTPCore
@testable import HTTPRouting

/// Live: malformed requests get the responder's protocol error, `Connection: close`, and a close.
@Suite struct HTTPServerRejectionTests {
    @Test(arguments: [
        ("bare LF", "GET / HTTP/1.1\nHost: h\r\n\r\n", 400),
        ("space before colon", "GET / HTTP/1.1\r\nHost : h\r\n\r\n", 400),
        ("folded header", "GET / HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n folded\r\n\r\n", 400),
        ("duplicate Content-Length", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx", 400),
        ("conflicting Content-Length list", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1, 2\r\n\r\nx", 400),
        ("negative Content-Length", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -5\r\n\r\n", 400),
        ("overflowing Content-Length", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 184467440737095516160\r\n\r\n", 400),
        ("CL with TE", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
        ("unsupported TE", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
        ("invalid method", "GE(T / HTTP/1.1\r\nHost: h\r\n\r\n", 400),
        ("space in target", "GET /a b HTTP/1.1\r\nHost: h\r\n\r\n", 400),
        ("absolute-form target", "GET http://h/ HTTP/1.1\r\nHost: h\r\n\r\n", 400),
        ("control char in target", "GET /a\u{01} HTTP/1.1\r\nHost: h\r\n\r\n", 400),
        ("HTTP/2.0", "GET / HTTP/2.0\r\nHost: h\r\n\r\n", 505),
        ("garbage version", "GET / HTTQ/1.1\r\nHost: h\r\n\r\n", 400),
        ("missing Host", "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", 400),
        ("NUL in value", "GET / HTTP/1.1\r\nHost: h\r\nX: a\u{0}\r\n\r\n", 400)
    ])
    func rejection(name: String, raw: String, status: Int) async throws {
        try await withServer { _, port in
            let (response, closed) = try await exchange(raw, port: port)
            #expect(response.status == status, "\(name)")
            #expect(response.header("Connection") == "close", "\(name)")
            #expect(response.body.hasPrefix("rejected: "), "\(name): the responder's protocol error response is used")
            #expect(response.header("X-Request-Id") != nil)
            #expect(closed, "\(name): connection closed after the rejection")
        }
    }

    @Test func requestLineTooLongIs414() async throws {
        try await withServer({ $0.maxRequestLineBytes = 100 }) { _, port in
            let (response, closed) = try await exchange("GET /\(String(repeating: "a", count: 200)) HTTP/1.1\r\nHost: h\r\n\r\n", port: port)
            #expect(response.status == 414)
            #expect(closed)
        }
    }

    /// The default request line takes a `/checkout/start` link with both platform tokens at their
    /// 4,096 bytes beside every other input (about 10 KB): it reaches the responder, not a 414.
    @Test func defaultRequestLineTakesTheLongestCheckoutLink() async throws {
        #expect(HTTPServerConfiguration().maxRequestLineBytes == 16 * 1024)
        try await withServer({ _ in }) { _, port in
            let target = "/checkout/start?" + String(repeating: "t", count: 10_000)
            let (response, _) = try await exchange("GET \(target) HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", port: port)
            #expect(response.status != 414)
        }
    }

    @Test func headerLineTooLongIs431() async throws {
        try await withServer({ $0.maxHeaderLineBytes = 100 }) { _, port in
            let (response, closed) = try await exchange("GET / HTTP/1.1\r\nHost: h\r\nX: \(String(repeating: "v", count: 200))\r\n\r\n", port: port)
            #expect(response.status == 431)
            #expect(closed)
        }
    }

    @Test func headerSectionTooLargeIs431() async throws {
        try await withServer({ $0.maxHeaderBytes = 300 }) { _, port in
            let headers = (0..<10).map { "X-\($0): \(String(repeating: "v", count: 40))\r\n" }.joined()
            let (response, closed) = try await exchange("GET / HTTP/1.1\r\nHost: h\r\n\(headers)\r\n", port: port)
            #expect(response.status == 431)
            #expect(closed)
        }
    }

    @Test func tooManyHeadersIs431() async throws {
        try await withServer { _, port in
            let headers = (0..<101).map { "X-\($0): v\r\n" }.joined()
            let (response, closed) = try await exchange("GET / HTTP/1.1\r\nHost: h\r\n\(headers)\r\n", port: port)
            #expect(response.status == 431)
            #expect(closed)
            // Exactly at the limit (Host + 99) is fine.
            let fine = (0..<99).map { "X-\($0): v\r\n" }.joined()
            let (ok, _) = try await exchange("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\(fine)\r\n", port: port)
            #expect(ok.status == 431, "Host + Connection + 99 = 101 fields")
            let justRight = (0..<98).map { "X-\($0): v\r\n" }.joined()
            let (accepted, _) = try await exchange("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\(justRight)\r\n", port: port)
            #expect(accepted.status == 200)
        }
    }

    @Test func contentLengthOverLimitIs413BeforeTheBody() async throws {
        try await withServer({ $0.maxBodyBytes = 100 }) { _, port in
            // Only the head is sent: the 413 must come without waiting for 101 body bytes.
            let client = try await TestClient.connect(port: port, sending: "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 101\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 413)
            #expect(response.header("Connection") == "close")
            #expect(await client.isClosedWithoutData())
        }
    }

    @Test func chunkedBodyOverLimitIs413() async throws {
        try await withServer({ $0.maxBodyBytes = 100 }) { _, port in
            let chunk = String(repeating: "x", count: 60)
            let client = try await TestClient.connect(
                port: port, sending: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3c\r\n\(chunk)\r\n3c\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 413)
            #expect(await client.isClosedWithoutData())
        }
    }

    @Test func perRouteBodyLimitOverridesTheDefault() async throws {
        try await withServer { _, port in
            let (tooBig, closed) = try await exchange("POST /small HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n01234567890", port: port)
            #expect(tooBig.status == 413)
            #expect(closed)
            let (fits, _) = try await exchange(
                "POST /small HTTP/1.1\r\nHost: h\r\nConnection: close\r\nContent-Length: 10\r\n\r\n0123456789", port: port)
            #expect(fits.status == 200)
            #expect(fits.header("X-Seen-Max-Body") == "10")
            #expect(fits.body == "POST /small 0123456789")
            let (other, _) = try await exchange(
                "POST /other HTTP/1.1\r\nHost: h\r\nConnection: close\r\nContent-Length: 11\r\n\r\n01234567890", port: port)
            #expect(other.status == 200)
            #expect(other.header("X-Seen-Max-Body") == String(1024 * 1024))
        }
    }

    @Test func expectContinueTooLargeGets413WithoutContinue() async throws {
        try await withServer({ $0.maxBodyBytes = 10 }) { _, port in
            let client = try await TestClient.connect(
                port: port, sending: "POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 50\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 413)
            #expect(await client.isClosedWithoutData())
        }
    }
}
