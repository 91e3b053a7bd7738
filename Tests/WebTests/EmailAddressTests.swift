import Testing

@testable import Web

@Suite("Email address inputs")
struct EmailAddressTests {
    @Test("Valid addresses are trimmed and lower-cased", arguments: [(" Jane@Example.COM ", "jane@example.com"), ("a@b.co", "a@b.co")])
    func valid(raw: String, expected: String) {
        #expect(EmailAddress.normalized(raw) == expected)
    }

    @Test(
        "Anything else is refused",
        arguments: [
            "", "plain", "a@b", "@b.co", "a@.co", "a@co.", "a b@c.co", "a@b@c.co", "a@b.co\nBcc: x@y.z",
            String(repeating: "a", count: 250) + "@b.co"
        ])
    func invalid(raw: String) {
        #expect(EmailAddress.normalized(raw) == nil)
    }
}
