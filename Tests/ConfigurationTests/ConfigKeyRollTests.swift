import Foundation
import Testing
@testable import Configuration

/// Issue 44, items 2 and 3: `stripe.webhook_secrets` and an events endpoint's `secret` list.
@Suite("Secrets that roll: stripe.webhook_secrets and events endpoints' secret lists")
struct ConfigKeyRollTests {
    static let eventSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    static let otherEventSecret = "whsec_" + Data(repeating: 7, count: 32).base64EncodedString()

    @Test("stripe.webhook_secrets: a list, newest first; the one webhook_secret still works; neither → empty")
    func stripeSecrets() throws {
        let list = try load(json: Fixtures.json(["stripe": ["webhook_secrets": ["whsec_new", "whsec_old"]]]))
        #expect(list.stripe.webhookSecretList == ["whsec_new", "whsec_old"])
        let one = try load(json: Fixtures.json(["stripe": ["webhook_secret": "whsec_one"]]))
        #expect(one.stripe.webhookSecretList == ["whsec_one"])
        #expect(try load(json: Fixtures.json()).stripe.webhookSecretList.isEmpty)
        let environment = try load(json: Fixtures.json(), environment: ["TOLLGATE_STRIPE_WEBHOOK_SECRETS": #"["whsec_a","whsec_b"]"#])
        #expect(environment.stripe.webhookSecretList == ["whsec_a", "whsec_b"])
        #expect(!list.maskedJSON().contains("whsec_new") && !list.maskedJSON().contains("whsec_old"), "config check masks every secret of the list")
    }

    @Test("Both stripe.webhook_secret and stripe.webhook_secrets: start-up refuses naming the key; a repeated or empty entry too, never echoed")
    func stripeSecretsBadInput() {
        let both = problems(json: Fixtures.json(["stripe": ["webhook_secret": "whsec_one", "webhook_secrets": ["whsec_two"]]]))
        #expect(problem("stripe.webhook_secrets", in: both)?.message.contains("not both") == true)
        #expect(!both.contains { $0.message.contains("whsec_one") || $0.message.contains("whsec_two") })
        let repeated = problems(json: Fixtures.json(["stripe": ["webhook_secrets": ["whsec_same", "whsec_same"]]]))
        #expect(problem("stripe.webhook_secrets[1]", in: repeated)?.message == "repeats an earlier entry of the list")
        #expect(!repeated.contains { $0.message.contains("whsec_same") })
    }

    @Test("Plans need a webhook secret: either form satisfies it")
    func plansTakeEither() throws {
        let stripe: [String: Any] = ["secret_key": "sk_x", "webhook_secrets": ["whsec_new", "whsec_old"]]
        let config = try load(json: Fixtures.json(["plans": ["m": ["price_id": "price_m"]], "stripe": stripe]))
        #expect(config.stripe.webhookSecretList.count == 2)
    }

    @Test("An events endpoint's secret may be a list: every entry checked, repeats refused, each masked")
    func eventSecretList() throws {
        let config = try load(
            json: Fixtures.json([
                "events": [
                    "endpoints": [
                        ["url": "https://backend.example.com/tollgate", "secret": [Self.otherEventSecret, Self.eventSecret]]
                    ]
                ]
            ]))
        #expect(config.events.endpoints.first?.secrets == [Self.otherEventSecret, Self.eventSecret])
        #expect(config.events.endpoints.first?.secret == Self.otherEventSecret, "the first is the newest")
        let masked = config.maskedJSON()
        #expect(!masked.contains(String(Self.eventSecret.dropFirst(6))) && !masked.contains(String(Self.otherEventSecret.dropFirst(6))))

        func problemText(_ secret: Any) -> String {
            do {
                _ = try load(json: Fixtures.json(["events": ["endpoints": [["url": "https://a.example.com", "secret": secret]]]]))
                return ""
            } catch {
                return "\(error)"
            }
        }
        #expect(problemText([Self.eventSecret, "sk_not_a_webhook_secret"]).contains("events.endpoints[0].secret[1]"))
        #expect(!problemText([Self.eventSecret, "sk_not_a_webhook_secret"]).contains("sk_not_a_webhook_secret"))
        #expect(problemText([Self.eventSecret, Self.eventSecret]).contains("repeats an earlier secret"))
        #expect(problemText([String]()).contains("at least one"))
    }
}

/// Issue 44, item 6: `apple.environment: Xcode` checks no signature, so it is refused unless
/// nobody else can reach the service.
@Suite("apple.environment: Xcode only where nobody else can reach the service")
struct ConfigXcodeEnvironmentTests {
    @Test(
        "Refused on a public interface or behind an https base_url, naming apple.environment",
        arguments: [
            ("0.0.0.0", "http://localhost:8080"), ("192.168.1.20", "http://192.168.1.20:8080"), ("127.0.0.1", "https://pay.example.com"),
            ("::", "http://localhost:8080")
        ])
    func refused(host: String, baseURL: String) {
        let found = problems(json: Fixtures.json(["apple": ["environment": "Xcode"], "listen": ["host": host], "base_url": baseURL]))
        let message = problem("apple.environment", in: found)?.message ?? ""
        #expect(message.contains("verifies no signature") && message.contains("loopback"))
    }

    @Test("Allowed on loopback with an http base_url (a developer's machine), and in demo mode", arguments: ["127.0.0.1", "localhost", "::1"])
    func allowedOnLoopback(host: String) throws {
        let config = try load(json: Fixtures.json(["apple": ["environment": "Xcode"], "listen": ["host": host], "base_url": "http://localhost:8080"]))
        #expect(config.apple.environment == .xcode)
    }

    @Test("Demo mode may use Xcode on any interface (nothing in it is real)")
    func allowedInDemo() throws {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let config = try ConfigLoader.load(
            path: nil,
            environment: [
                "TOLLGATE_DATABASE_PATH": directory.file("tollgate.sqlite"), "TOLLGATE_APPLE_ENVIRONMENT": "Xcode", "TOLLGATE_LISTEN_HOST": "0.0.0.0"
            ])
        #expect(config.isDemo && config.apple.environment == .xcode)
    }

    @Test("Sandbox and Production are never refused on any interface")
    func otherEnvironments() throws {
        for environment in ["Sandbox", "Production"] {
            let config = try load(json: Fixtures.json(["apple": ["environment": environment], "listen": ["host": "0.0.0.0"]]))
            #expect(config.apple.environment.rawValue == environment)
        }
    }

    @Test("The loopback rule")
    func loopback() {
        #expect(ConfigValidator.isLoopback("127.0.0.1") && ConfigValidator.isLoopback("127.3.2.1") && ConfigValidator.isLoopback("[::1]"))
        #expect(!ConfigValidator.isLoopback("0.0.0.0") && !ConfigValidator.isLoopback("127.example.com") && !ConfigValidator.isLoopback("::"))
    }
}
