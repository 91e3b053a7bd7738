import Foundation
import Testing
@testable import Configuration

@Suite("Validation")
struct ConfigValidationTests {
    @Test("an unknown key is reported with its path and a close match")
    func unknownKey() {
        let found = problems(json: Fixtures.json(["stripe": ["secret_kye": "sk_x"]]))
        let typo = problem("stripe.secret_kye", in: found)
        #expect(typo?.message == "unknown key; did you mean secret_key?")
        #expect(typo?.description.hasPrefix("stripe.secret_kye: unknown key; did you mean secret_key?") == true)
    }

    @Test("a wrong JSON type names what was expected and what came")
    func wrongType() {
        let found = problems(json: Fixtures.json(["listen": ["port": "80a"], "app": ["name": 12]]))
        #expect(problem("listen.port", in: found)?.message == "expected an integer, got \"80a\"")
        #expect(problem("app.name", in: found)?.message == "expected a string, got 12")
    }

    @Test("booleans and numbers are told apart (NSNumber on Linux)")
    func boolVersusNumber() throws {
        let found = problems(json: Fixtures.json(["listen": ["port": true], "stripe": ["allow_promotion_codes": 1]]))
        #expect(problem("listen.port", in: found)?.message == "expected an integer, got true")
        #expect(problem("stripe.allow_promotion_codes", in: found)?.message == "expected true or false, got 1")
        let config = try load(json: Fixtures.json(["stripe": ["allow_promotion_codes": true], "listen": ["port": 1]]))
        #expect(config.stripe.allowPromotionCodes && config.listen.port == 1)
    }

    @Test("a section that is not an object is reported")
    func sectionNotObject() {
        let found = problems(json: Fixtures.json(["listen": 8080]))
        #expect(problem("listen", in: found)?.message == "expected an object with keys host, port; got 8080")
    }

    @Test("listen.port must be in 0–65535 (0 picks a free port)", arguments: [65_536, -1])
    func listenPortRange(port: Int) {
        let found = problems(json: Fixtures.json(["listen": ["port": port]]))
        #expect(problem("listen.port", in: found)?.message == "must be between 0 and 65535; got \(port)")
    }

    @Test(
        "database.url must be a PostgreSQL URL, never echoed; database.max_connections is 2–1000",
        arguments: ["mysql://u:s3cret@db/x", "s3cret", "sqlite:///data/x.sqlite"])
    func databaseURL(url: String) throws {
        let found = problems(json: Fixtures.json(["database": ["url": url, "max_connections": 1]]))
        #expect(problem("database.url", in: found)?.message.hasPrefix("must be a PostgreSQL URL") == true)
        #expect(!found.contains { $0.message.contains("s3cret") }, "the URL holds the password")
        #expect(problem("database.max_connections", in: found)?.message == "must be between 2 and 1000; got 1")
        #expect(try load(json: Fixtures.json(["database": ["url": "postgresql://u@db/x"]])).database.url == "postgresql://u@db/x")
    }

    @Test("mail.smtp.port must be in 1–65535", arguments: [0, 65_536, -1])
    func smtpPortRange(port: Int) {
        let found = problems(json: Fixtures.json(["mail": ["smtp": ["port": port]]]))
        #expect(problem("mail.smtp.port", in: found)?.message == "must be between 1 and 65535; got \(port)")
    }

    @Test(
        "base_url must be an absolute http(s) URL without query or fragment",
        arguments: [
            "pay.example.com", "/checkout", "ftp://pay.example.com", "https://pay.example.com/?a=1",
            "https://pay.example.com/#top", "https://user:pw@pay.example.com"
        ])
    func baseURLRules(url: String) {
        let found = problems(json: Fixtures.json(["base_url": url]))
        #expect(found.count == 1)
        #expect(problem("base_url", in: found)?.message.hasPrefix("must") == true)
    }

    @Test("base_url is required outside demo mode")
    func baseURLRequired() {
        let found = problems(json: Fixtures.json(["base_url": NSNull()]))
        #expect(problem("base_url", in: found)?.message.hasPrefix("required") == true)
    }

    @Test("redirect URLs must be https, except on localhost")
    func redirectURLs() throws {
        let found = problems(
            json: Fixtures.json([
                "redemption": [
                    "redirect_urls": [
                        "https://example.com/welcome?from=tollgate", "http://example.com/welcome", "https://example.com/#x", "welcome"
                    ]
                ]
            ]))
        #expect(found.map(\.keyPath) == ["redemption.redirect_urls[1]", "redemption.redirect_urls[2]", "redemption.redirect_urls[3]"])
        #expect(found.first?.message == "must use https (http is allowed only for localhost and 127.0.0.1); got \"http://example.com/welcome\"")
        let config = try load(
            json: Fixtures.json([
                "redemption": [
                    "mode": "redirect",
                    "redirect_urls": [
                        "http://localhost:3000/done", "http://127.0.0.1/done"
                    ]
                ]
            ]))
        #expect(config.redemption.mode == .redirect && config.redemption.redirectURLs.count == 2)
    }

    @Test("redirect mode needs at least one redirect URL")
    func redirectModeNeedsURLs() {
        let found = problems(json: Fixtures.json(["redemption": ["mode": "redirect"]]))
        #expect(problem("redemption.redirect_urls", in: found)?.message.hasPrefix("required when redemption.mode is redirect") == true)
    }

    @Test("products_duration_days: whole days 1–36500 for a product something grants, each problem under its own key")
    func productDurations() {
        let found = problems(
            json: Fixtures.json([
                "entitlements": ["premium": ["com.example.season"]],
                "products_duration_days": ["com.example.season": 0, "com.example.typo": 30, "com.example.text": "90"]
            ]))
        #expect(problem("products_duration_days.com.example.season", in: found)?.message.contains("1–36500") == true)
        #expect(problem("products_duration_days.com.example.text", in: found) != nil)
        let typo = problems(
            json: Fixtures.json([
                "entitlements": ["premium": ["com.example.season"]], "products_duration_days": ["com.example.seasn": 90]
            ]))
        #expect(
            problem("products_duration_days.com.example.seasn", in: typo)?.message == "names a product that is in neither entitlements nor products")
        let good = try? load(
            json: Fixtures.json([
                "entitlements": ["premium": ["com.example.season"]], "products_duration_days": ["com.example.season": 90]
            ]))
        #expect(good?.productsDurationDays == ["com.example.season": 90])
    }

    @Test("code_ttl_seconds > 0 and max_devices ≥ 1")
    func redemptionLimits() {
        let found = problems(json: Fixtures.json(["redemption": ["code_ttl_seconds": 0, "max_devices": 0, "resend_interval_seconds": -5]]))
        #expect(problem("redemption.code_ttl_seconds", in: found)?.message == "must be at least 1; got 0")
        #expect(problem("redemption.max_devices", in: found)?.message == "must be at least 1; got 0")
        #expect(problem("redemption.resend_interval_seconds", in: found)?.message == "must be at least 0; got -5")
    }

    @Test("a closed set names its values and what came")
    func choices() throws {
        let found = problems(json: Fixtures.json(["redemption": ["on_other_user": "swap"]]))
        #expect(problem("redemption.on_other_user", in: found)?.message == "must be one of switch, transfer, reject; got \"swap\"")
        let config = try load(json: Fixtures.json(["apple": ["environment": "sandbox"], "log": ["level": "DEBUG"]]))
        #expect(config.apple.environment == .sandbox && config.log.level == .debug)
    }

    @Test("admin token hashes must be 64 hex characters; upper case is normalised")
    func adminTokens() throws {
        let found = problems(
            json: Fixtures.json(["admin": ["tokens_sha256": [Fixtures.tokenHash, "my-plain-admin-token", String(repeating: "g", count: 64)]]]))
        #expect(found.map(\.keyPath) == ["admin.tokens_sha256[1]", "admin.tokens_sha256[2]"])
        #expect(found.first?.message.contains("got 20 characters") == true)
        #expect(!ConfigError(problems: found).description.contains("my-plain-admin-token"))
        let config = try load(json: Fixtures.json(["admin": ["tokens_sha256": [Fixtures.tokenHash.uppercased()]]]))
        #expect(config.admin.tokensSHA256 == [Fixtures.tokenHash])
    }

    @Test("trusted proxies must be IPv4 or IPv6 CIDRs")
    func trustedProxies() throws {
        let good = ["10.0.0.0/8", "192.168.1.7", "::1/128", "2001:db8::/32", "0.0.0.0/0"]
        let config = try load(json: Fixtures.json(["http": ["trusted_proxies": good]]))
        #expect(config.http.trustedProxyNetworks.count == good.count)
        let found = problems(
            json: Fixtures.json(["http": ["trusted_proxies": ["10.0.0.0/33", "10.0.0/8", "fe80::/129", "proxy.local", "10.0.0.1/"]]]))
        #expect(found.map(\.keyPath) == (0..<5).map { "http.trusted_proxies[\($0)]" })
    }

    @Test("plans: mode, price_id and unknown keys are checked")
    func plans() {
        let found = problems(
            json: Fixtures.json([
                "plans": [
                    "a": ["price_id": "price_a", "mode": "lifetime"], "b": ["mode": "payment"], "c": ["price_id": "price_c", "prise": 1]
                ], "stripe": ["secret_key": "sk_x", "webhook_secret": "whsec_x"]
            ]))
        #expect(problem("plans.a.mode", in: found)?.message == "must be one of subscription, payment; got \"lifetime\"")
        #expect(problem("plans.b.price_id", in: found)?.message.hasPrefix("required") == true)
        #expect(problem("plans.c.prise", in: found)?.message.hasPrefix("unknown key") == true)
    }

    @Test("plans need Stripe credentials outside demo mode")
    func plansNeedStripe() {
        let found = problems(json: Fixtures.json(["plans": ["m": ["price_id": "price_m"]]]))
        #expect(Set(found.map(\.keyPath)) == ["stripe.secret_key", "stripe.webhook_secret"])
    }

    @Test("entitlements must list product ids as strings")
    func entitlements() {
        let found = problems(json: Fixtures.json(["entitlements": ["premium": ["price_1", 42], "gold": "price_2"]]))
        #expect(problem("entitlements.premium[1]", in: found)?.message == "expected a string, got 42")
        #expect(problem("entitlements.gold", in: found)?.message == "expected an array of strings, got \"price_2\"")
    }

    @Test("secret_key is required and at least 32 characters outside demo mode")
    func secretKey() {
        let missing = problems(json: Fixtures.json(["secret_key": NSNull()]))
        #expect(problem("secret_key", in: missing)?.message.hasPrefix("required outside demo mode") == true)
        let short = problems(json: Fixtures.json(["secret_key": "hunter2-is-short"]))
        #expect(problem("secret_key", in: short)?.message == "must be at least 32 characters; got 16")
        let wrongType = problems(json: Fixtures.json(["secret_key": 123_456_789]))
        #expect(problem("secret_key", in: wrongType)?.message == "expected a string, got a number")
    }

    @Test("SMTP transport needs a host and a sender")
    func smtpNeedsHost() throws {
        let found = problems(json: Fixtures.json(["mail": ["transport": "smtp"]]))
        #expect(problem("mail.smtp.host", in: found)?.message.hasPrefix("required when mail.transport is smtp") == true)
        #expect(problem("mail.from", in: found) != nil)
        let config = try load(
            json: Fixtures.json(["mail": ["transport": "smtp", "from": "Ex <a@b.c>", "smtp": ["host": "smtp.b.c", "security": "tls", "port": 465]]]))
        #expect(config.mail.smtp.host == "smtp.b.c" && config.mail.smtp.security == .tls && config.mail.smtp.port == 465)
    }

    @Test("App Store Server API credentials come all together")
    func appleAPIAllOrNothing() {
        let found = problems(json: Fixtures.json(["apple": ["api": ["key_id": "ABC123"]]]))
        #expect(Set(found.map(\.keyPath)) == ["apple.api.issuer_id", "apple.api.private_key_path"])
    }

    @Test("app identity values are checked")
    func appIdentity() {
        let found = problems(json: Fixtures.json(["app": ["scheme": "exampleapp://", "ios": ["team_id": "abc", "app_apple_id": 0]]]))
        #expect(problem("app.scheme", in: found)?.message.contains("without ://") == true)
        #expect(problem("app.ios.team_id", in: found) != nil)
        #expect(problem("app.ios.app_apple_id", in: found)?.message == "must be at least 1; got 0")
    }

    @Test("every problem is reported together, not just the first")
    func multipleProblems() {
        let found = problems(
            json: Fixtures.json([
                "listen": ["port": 70_000], "redemption": ["on_other_user": "swap", "max_devices": 0],
                "http": ["trusted_proxies": ["nope"]], "unknown_section": [:]
            ]), environment: ["TOLLGATE_LOG_LEVL": "debug"])
        #expect(
            Set(found.map(\.keyPath)).isSuperset(of: [
                "listen.port", "redemption.on_other_user", "redemption.max_devices", "http.trusted_proxies[0]", "unknown_section"
            ]))
        #expect(found.contains { $0.source == .environment("TOLLGATE_LOG_LEVL") })
        let text = ConfigError(problems: found).description
        #expect(text.hasPrefix("Invalid configuration (\(found.count) problems):"))
        #expect(text.split(separator: "\n").count == found.count + 1)
    }
}
