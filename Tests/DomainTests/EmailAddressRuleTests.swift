import Domain
import Testing

/// The one address rule (issue 40, finding 8): what the edge takes, the mailer sends to.
@Suite("The one email address rule")
struct EmailAddressRuleTests {
    @Test(
        "Addresses the mailer would refuse are refused",
        arguments: [
            "a>,<evil@attacker.com", #""q"@example.com"#, "ünï@exämple.com", "a b@example.com", "a@b", "a@.example.com", "a@example.com.",
            "@example.com", "a@", "a@b@example.com", "a\r\n@example.com", "x;y@example.com", "x(y)@example.com",
            String(repeating: "l", count: 65) + "@example.com"
        ])
    func refused(address: String) {
        #expect(!EmailAddressRule.accepts(address))
        #expect(EmailAddressRule.normalized(address) == nil)
    }

    @Test("Ordinary addresses pass, trimmed and lower-cased")
    func accepted() {
        #expect(EmailAddressRule.normalized("  Buyer+tag@Example.COM ") == "buyer+tag@example.com")
        #expect(EmailAddressRule.accepts("o'brien@mail.example.co.uk"))
    }
}
