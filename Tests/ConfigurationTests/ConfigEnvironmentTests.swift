import Foundation
import Testing
@testable import Configuration

@Suite("Environment overrides")
struct ConfigEnvironmentTests {
    @Test("a string variable overrides the file")
    func stringOverride() throws {
        let config = try load(
            json: Fixtures.json(), environment: ["TOLLGATE_APP_NAME": "From Env", "TOLLGATE_STRIPE_API_BASE": "http://127.0.0.1:4242"])
        #expect(config.app.name == "From Env")
        #expect(config.stripe.apiBase == "http://127.0.0.1:4242")
    }

    @Test("an integer variable is parsed per the schema")
    func integerOverride() throws {
        let config = try load(
            json: Fixtures.json(["listen": ["port": 8080]]), environment: ["TOLLGATE_LISTEN_PORT": "9000", "TOLLGATE_REDEMPTION_MAX_DEVICES": " 3 "])
        #expect(config.listen.port == 9000)
        #expect(config.redemption.maxDevices == 3)
    }

    @Test("a boolean variable is parsed per the schema", arguments: [("true", true), ("1", true), ("FALSE", false), ("off", false)])
    func booleanOverride(raw: String, expected: Bool) throws {
        let config = try load(
            json: Fixtures.json(["stripe": ["allow_promotion_codes": !expected]]), environment: ["TOLLGATE_STRIPE_ALLOW_PROMOTION_CODES": raw])
        #expect(config.stripe.allowPromotionCodes == expected)
    }

    @Test("a string array from a comma-separated list")
    func listFromCommas() throws {
        let config = try load(json: Fixtures.json(), environment: ["TOLLGATE_HTTP_TRUSTED_PROXIES": "10.0.0.0/8, 192.168.1.1 ,2001:db8::/32"])
        #expect(config.http.trustedProxies == ["10.0.0.0/8", "192.168.1.1", "2001:db8::/32"])
    }

    @Test("a string array from a JSON array")
    func listFromJSON() throws {
        let config = try load(json: Fixtures.json(), environment: ["TOLLGATE_PRODUCTS": #"["com.example.a", "com.example,b"]"#])
        #expect(config.products == ["com.example.a", "com.example,b"])
    }

    @Test("dynamic-key maps are replaced as a whole from JSON")
    func mapsFromJSON() throws {
        let file = Fixtures.json(["plans": ["old": ["price_id": "price_old"]], "stripe": ["secret_key": "sk_live_x", "webhook_secret": "whsec_x"]])
        let config = try load(
            json: file,
            environment: [
                "TOLLGATE_PLANS": #"{"yearly": {"price_id": "price_999", "mode": "payment"}}"#,
                "TOLLGATE_ENTITLEMENTS": #"{"pro": ["price_999", "com.example.pro"]}"#
            ])
        #expect(config.plans == ["yearly": .init(priceID: "price_999", mode: .payment)])
        #expect(config.entitlements == ["pro": ["price_999", "com.example.pro"]])
    }

    @Test("a bad number names the variable and the key")
    func badInteger() {
        let found = problems(json: Fixtures.json(), environment: ["TOLLGATE_LISTEN_PORT": "80a"])
        let port = problem("listen.port", in: found)
        #expect(port?.source == .environment("TOLLGATE_LISTEN_PORT"))
        #expect(port?.message == "expected an integer, got \"80a\"")
        #expect(port?.description == "listen.port: expected an integer, got \"80a\" (environment variable TOLLGATE_LISTEN_PORT)")
    }

    @Test("a bad boolean names the variable and the key")
    func badBoolean() {
        let found = problems(json: Fixtures.json(), environment: ["TOLLGATE_STRIPE_ALLOW_PROMOTION_CODES": "maybe"])
        #expect(problem("stripe.allow_promotion_codes", in: found)?.message == "expected true or false, got \"maybe\"")
    }

    @Test("broken JSON in a map variable is an error")
    func badMapJSON() {
        let found = problems(json: Fixtures.json(), environment: ["TOLLGATE_PLANS": #"{"monthly": "#])
        let plans = problem("plans", in: found)
        #expect(plans?.source == .environment("TOLLGATE_PLANS"))
        #expect(plans?.message.hasPrefix("expected a JSON object") == true)
    }

    @Test("a TOLLGATE_ variable matching no key is an error with a suggestion")
    func typo() {
        let found = problems(json: Fixtures.json(), environment: ["TOLLGATE_LISTEN_PROT": "9000"])
        #expect(found.count == 1)
        #expect(found.first?.source == .environment("TOLLGATE_LISTEN_PROT"))
        #expect(found.first?.message == "matches no configuration key; did you mean TOLLGATE_LISTEN_PORT?")
        #expect(
            found.first?.description == "environment variable TOLLGATE_LISTEN_PROT: matches no configuration key; did you mean TOLLGATE_LISTEN_PORT?")
    }

    @Test("a variable reaching into a map says to set the map as a whole")
    func mapMemberVariable() {
        let found = problems(json: Fixtures.json(), environment: ["TOLLGATE_PLANS_MONTHLY_PRICE_ID": "price_1"])
        #expect(found.first?.message.contains("TOLLGATE_PLANS='{") == true)
    }

    @Test("TOLLGATE_CONFIG, the writer's debug measure and unrelated variables are not errors")
    func nonKeyVariables() throws {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let path = try directory.write("c.json", Fixtures.json())
        let config = try ConfigLoader.load(
            path: path,
            environment: ["TOLLGATE_CONFIG": "/elsewhere.json", "TOLLGATE_DEBUG_WRITE_WAITS": "1", "PATH": "/bin", "TOLLGATEX": "1"])
        #expect(config.baseURL == "https://pay.example.com")
    }

    @Test("an empty string variable leaves the key unset")
    func emptyVariable() throws {
        let config = try load(
            json: Fixtures.json(["stripe": ["secret_key": "sk_file"]]), environment: ["TOLLGATE_STRIPE_SECRET_KEY": "", "TOLLGATE_APP_NAME": ""])
        #expect(config.stripe.secretKey == "sk_file")
        #expect(config.app.name == "Tollgate")
    }

    @Test("environment names derive from key paths and never collide")
    func environmentNames() {
        let keys = TollgateConfig.documentedKeys()
        let names = keys.map(\.env) + keys.filter(\.secret).map { $0.env + "_FILE" }
        #expect(Set(names).count == names.count)
        #expect(keys.first { $0.path == "stripe.secret_key" }?.env == "TOLLGATE_STRIPE_SECRET_KEY")
        #expect(keys.first { $0.path == "apple.api.sandbox_base_url" }?.env == "TOLLGATE_APPLE_API_SANDBOX_BASE_URL")
        #expect(!names.contains("TOLLGATE_CONFIG"))
    }
}
