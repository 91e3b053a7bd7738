import HTTPCore
import Testing

/// Header names are looked up as RFC 9110 says: ASCII letters without regard to case, every
/// other byte exactly; the first field of a repeated name answers.
@Suite("HTTPHeaders: looking a field up by name")
struct HTTPHeadersTests {
    static let headers: HTTPHeaders = [
        "Host": "example.com", "Content-Type": "application/json", "X-Forwarded-For": "203.0.113.7",
        "Idempotency-Key": "first", "idempotency-key": "second", "X-Tollgate-App-User-Secret": "long-name",
        "X_A": "underscore", "Ünïcode": "not folded"
    ]

    @Test(
        "ASCII letters match in any case; other bytes must be equal",
        arguments: [
            ("content-type", "application/json"), ("CONTENT-TYPE", "application/json"), ("cOnTeNt-TyPe", "application/json"),
            ("x-tollgate-app-user-secret", "long-name"), ("X-TOLLGATE-APP-USER-SECRET", "long-name"),
            ("x_a", "underscore"), ("Ünïcode", "not folded")
        ])
    func found(name: String, value: String) {
        #expect(Self.headers[name] == value)
    }

    @Test(
        "names of the same length that differ, a different separator, or non-ASCII case are not found",
        arguments: [
            "Content-Typf", "Content_Type", "X-A", "x-a", "ünïcode", "ÜNÏCODE", "Hos", "Hostt", "", "X-Forwarded-Fo"
        ])
    func notFound(name: String) {
        #expect(Self.headers[name] == nil)
    }

    @Test("the first field of a repeated name answers; every value is kept in order")
    func repeated() {
        #expect(Self.headers["IDEMPOTENCY-KEY"] == "first")
        #expect(Self.headers.values(for: "Idempotency-Key") == ["first", "second"])
    }

    @Test(
        "a list entry loses the spaces and tabs around it, and nothing else",
        arguments: [
            (" \t203.0.113.7 \t", "203.0.113.7"), ("203.0.113.7", "203.0.113.7"), ("  a b  ", "a b"), (" \t ", ""), ("", ""),
            ("\tété\t", "été"), (" \u{301}x", "\u{301}x"), ("\u{A0}x\u{A0}", "\u{A0}x\u{A0}")
        ])
    func trimming(part: String, trimmed: String) {
        let result = HTTPHeaders.trimmingOptionalWhitespace(Substring(part))
        #expect(result == Substring(trimmed))
        #expect(Array(result.utf8) == Array(trimmed.utf8))
    }
}
