import Testing
@testable import HTTPCore
@testable import HTTPRouting

/// Live: a body sent as JSON (`application/json`, `*/*+json`) that is not strict RFC 8259 gets
/// the responder's 400 before any route sees it, whatever the route does with JSON; the
/// connection stays usable. Other media types pass untouched.
@Suite struct HTTPServerJSONBodyTests {
    @Test(arguments: [
        ("application/json", #"{"a":1,"a":2}"#, 400),
        ("application/json; charset=utf-8", #"{"a":[1,2,]}"#, 400),
        ("Application/Merge-Patch+JSON", "{\"a\":\"\u{01}\"}", 400),
        ("application/json", #"{"a":"\udfff"}"#, 400),
        ("application/json", #"{"a":{"b":1},"c":"\ud83d\ude00"}"#, 200),
        ("text/plain", #"{"a":1,"a":2}"#, 200),
        ("application/x-www-form-urlencoded", "a=1&a=2", 200),
    ])
    func jsonBodies(contentType: String, body: String, status: Int) async throws {
        let responder = TestResponder()
        try await withServer(responder: responder) { _, port in
            let client = try await TestClient.connect(port: port)
            try await client.send("POST /json HTTP/1.1\r\nHost: h\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            let response = try await client.readResponse()
            #expect(response.status == status, "\(contentType) \(body)")
            if status == 400 {
                #expect(response.body.hasPrefix("rejected: The body is not valid JSON"), "\(response.body)")
            }
            // The request was well framed: the connection serves the next one.
            try await client.send("GET /next HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try await client.readResponse().status == 200)
        }
    }
}
