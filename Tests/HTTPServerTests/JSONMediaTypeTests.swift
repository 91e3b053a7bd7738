import HTTPCore
import HTTPRouting
import Testing

@Suite("JSON media types")
struct JSONMediaTypeTests {
    @Test(
        "application/json and */*+json declare JSON, in any case, with parameters and spaces; nothing else does",
        arguments: [
            ("application/json", true), ("Application/JSON; charset=utf-8", true), (" application/json ;x=y", true),
            ("application/problem+json", true), ("APPLICATION/VND.API+JSON;v=1", true),
            ("text/plain", false), ("application/jsonx", false), ("json", false), ("application/json5", false), ("", false),
            ("application/x-www-form-urlencoded", false), ("+json", true)
        ])
    func declares(_ value: String, _ expected: Bool) {
        let request = HTTPRequest(method: .post, target: "/", headers: ["Content-Type": value], body: Array("{}".utf8))
        #expect(request.declaresJSONBody == expected, "\(value)")
    }

    @Test("No Content-Type declares nothing")
    func absent() {
        #expect(!HTTPRequest(method: .post, target: "/", body: Array("{}".utf8)).declaresJSONBody)
    }
}
