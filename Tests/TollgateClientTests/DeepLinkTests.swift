import Foundation
import Testing
import TollgateClient

@Suite("Deep links")
struct DeepLinkTests {
    static let client = Tollgate(
        configuration: TollgateConfiguration(
            baseURL: URL(string: "https://pay.example.com")!, apiKey: "pk", appScheme: "exampleapp"))

    @Test(
        "Redeem links in both forms, normalized",
        arguments: [
            ("exampleapp://redeem?code=K7P2-9QXM-4D8R-2WTF", "K7P2-9QXM-4D8R-2WTF"),
            ("exampleapp://redeem?code=k7p29qxm4d8r2wtf", "K7P2-9QXM-4D8R-2WTF"),
            ("EXAMPLEAPP://REDEEM?code=k7p2%209qxm%204d8r%202wtf", "K7P2-9QXM-4D8R-2WTF"),
            ("exampleapp://redeem/K7P2-9QXM-4D8R-2WTF", "K7P2-9QXM-4D8R-2WTF"),
            ("https://pay.example.com/redeem/K7P2-9QXM-4D8R-2WTF", "K7P2-9QXM-4D8R-2WTF"),
            ("https://PAY.example.com/redeem/k7p2-9qxm-4d8r-2wtf/", "K7P2-9QXM-4D8R-2WTF"),
            ("https://pay.example.com/redeem/k7p2%209qxm-4d8r2wtf?utm_source=mail", "K7P2-9QXM-4D8R-2WTF"),
            ("exampleapp://redeem?code=abc-12", "ABC12")
        ])
    func redeemLinks(link: String, code: String) {
        #expect(Self.client.link(from: URL(string: link)!) == .redeem(code: code))
    }

    @Test(
        "Links that are not redeem links give nil",
        arguments: [
            "exampleapp://settings", "exampleapp://redeem", "exampleapp://redeem?code=", "exampleapp://redeem?code=%2F%2F",
            "otherapp://redeem?code=K7P2-9QXM-4D8R-2WTF", "https://evil.example.net/redeem/K7P2-9QXM-4D8R-2WTF",
            "https://pay.example.com/pricing", "https://pay.example.com/redeem/", "https://pay.example.com/redeem/K7P2/extra",
            "https://pay.example.com/redeem/" + String(repeating: "A", count: 65), "mailto:someone@example.com"
        ])
    func notRedeemLinks(link: String) {
        #expect(Self.client.link(from: URL(string: link)!) == nil)
    }

    @Test("Without a configured scheme or host any custom scheme and https host is read; a base path is honoured")
    func unconstrained() {
        #expect(TollgateLink(url: URL(string: "whatever://redeem?code=ab")!) == .redeem(code: "AB"))
        #expect(TollgateLink(url: URL(string: "https://other.example/redeem/ab")!) == .redeem(code: "AB"))
        let base = URL(string: "https://example.com/pay")!
        #expect(TollgateLink(url: URL(string: "https://example.com/pay/redeem/ab")!, baseURL: base) == .redeem(code: "AB"))
        #expect(TollgateLink(url: URL(string: "https://example.com/redeem/ab")!, baseURL: base) == nil)
    }

    @Test("The sign-in callback after a login_url")
    func signInCallback() {
        #expect(Self.client.link(from: URL(string: "exampleapp://auth/callback?code=abc123")!) == .signIn(authorizationCode: "abc123"))
        #expect(Self.client.link(from: URL(string: "exampleapp://auth/callback")!) == nil)
        #expect(Self.client.link(from: URL(string: "exampleapp://auth/other?code=abc")!) == nil)
    }
}
