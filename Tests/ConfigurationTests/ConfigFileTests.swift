import Foundation
import Testing
@testable import Configuration

@Suite("Configuration file")
struct ConfigFileTests {
    @Test("the spec's example, verbatim, fails only on its three placeholders")
    func specExampleVerbatim() {
        let found = problems(json: Fixtures.specExample)
        #expect(
            Set(found.map(\.keyPath)) == [
                "app.android.sha256_cert_fingerprints[0]", "admin.tokens_sha256[0]", "mail.smtp.security"
            ])
        let security = problem("mail.smtp.security", in: found)
        #expect(security?.message == "must be one of starttls, tls, none; got \"starttls | tls | none\"")
    }

    @Test("the spec's example with real values loads every key")
    func specExampleLoads() throws {
        let config = try load(json: Fixtures.specExampleFilledIn)
        #expect(!config.isDemo)
        #expect(config.baseURL == "https://pay.example.com")
        #expect(config.listen.host == "0.0.0.0" && config.listen.port == 8080)
        #expect(config.secretKey == Fixtures.secrets.secretKey)
        #expect(config.app.name == "Example" && config.app.scheme == "exampleapp")
        #expect(config.app.ios.appAppleID == 1_234_567_890)
        #expect(config.app.ios.teamID == "ABCDE12345")
        #expect(config.app.android.sha256CertFingerprints == [Fixtures.fingerprint])
        #expect(config.app.android.playStoreURL == "https://play.google.com/store/apps/details?id=com.example.app")
        #expect(config.apiKeys.publicKeys == ["pk_..."])
        #expect(config.apiKeys.serverKeys == [Fixtures.secrets.serverKey])
        #expect(config.admin.tokensSHA256 == [Fixtures.tokenHash])
        #expect(config.plans == ["monthly": .init(priceID: "price_123", mode: .subscription)])
        #expect(config.entitlements == ["premium": ["price_123", "com.example.monthly", "monthly_sub"]])
        #expect(config.products == ["com.example.monthly"])
        #expect(config.stripe.secretKey == Fixtures.secrets.stripeKey)
        #expect(config.apple.environment == .production)
        #expect(config.apple.api.privateKeyPath == "AuthKey.p8")
        #expect(config.google.rtdnToken == Fixtures.secrets.rtdnToken)
        #expect(config.redemption.redirectURLs == ["https://example.com/welcome"])
        #expect(config.redemption.onOtherUser == .switch)
        #expect(config.mail.transport == .smtp && config.mail.smtp.security == .starttls)
        #expect(config.mail.smtp.caFile == nil)
        #expect(config.mail.smtp.password == Fixtures.secrets.smtpPassword)
        #expect(config.http.trustedProxies == ["127.0.0.1/32"])
        #expect(config.http.trustedProxyNetworks.first?.contains("127.0.0.1") == true)
    }

    @Test("a minimal file gets every default")
    func defaultsApplied() throws {
        let config = try load(json: Fixtures.json())
        #expect(config.listen.host == "0.0.0.0" && config.listen.port == 8080)
        #expect(config.database.path == "data/tollgate.sqlite")
        #expect(config.app.name == "Tollgate")
        #expect(config.plans.isEmpty && config.entitlements.isEmpty && config.products.isEmpty)
        #expect(config.stripe.apiBase == "https://api.stripe.com" && config.stripe.secretKey == nil)
        #expect(config.stripe.allowPromotionCodes == false)
        #expect(config.apple.environment == .production)
        #expect(config.apple.rootCertificates == ["certs/AppleRootCA-G3.cer"])
        #expect(config.apple.verifyReceiptURL == "https://buy.itunes.apple.com/verifyReceipt")
        #expect(config.apple.verifyReceiptSandboxURL == "https://sandbox.itunes.apple.com/verifyReceipt")
        #expect(config.apple.api.baseURL == "https://api.storekit.itunes.apple.com")
        #expect(config.apple.api.sandboxBaseURL == "https://api.storekit-sandbox.itunes.apple.com")
        #expect(config.google.apiBase == "https://androidpublisher.googleapis.com")
        #expect(config.redemption == TollgateConfig.Redemption())
        #expect(config.redemption.mode == .redeem && config.redemption.codeTTLSeconds == 259_200)
        #expect(config.redemption.maxDevices == 5 && config.redemption.resendIntervalSeconds == 600)
        #expect(config.mail.fileDir == "data/mail" && config.mail.smtp.port == 587 && config.mail.smtp.security == .starttls)
        #expect(config.http.maxBodyBytes == 1_048_576 && config.http.maxConnections == 10_000)
        #expect(config.http.headerReadTimeoutSeconds == 10 && config.http.keepAliveTimeoutSeconds == 60)
        #expect(config.log.level == .info)
        #expect(config.paths.templatesDir == "templates" && config.paths.publicDir == "Public")
    }

    @Test("a missing file is named in a clear error")
    func missingFile() throws {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let path = directory.file("nope.json")
        #expect {
            try ConfigLoader.load(path: path, environment: [:])
        } throws: { error in
            guard let error = error as? ConfigError, let first = error.problems.first else { return false }
            return first.source == .configFile(path) && first.message.contains("file not found")
                && error.description.contains(path)
        }
    }

    @Test("malformed JSON reports the line and column")
    func malformedJSON() {
        let found = problems(json: "{\n  \"base_url\": \"https://x.example\",\n  \"listen\": {\"port\": }\n}")
        #expect(found.count == 1)
        #expect(found.first?.message.contains("not valid JSON") == true)
        #expect(found.first?.message.contains("line 3, column 22") == true)
    }

    @Test("a key given twice in the file is refused with its line and column, not silently overridden")
    func duplicateKey() {
        let found = problems(json: "{\n  \"listen\": {\"port\": 8080},\n  \"listen\": {\"port\": 9090}\n}")
        #expect(found.count == 1)
        #expect(found.first?.message == #"not valid JSON: duplicate key "listen" at line 3, column 3"#)
    }

    @Test("a file that is not a JSON object is refused")
    func nonObjectRoot() {
        let found = problems(json: "[1, 2]")
        #expect(found.first?.message == "the file must hold a JSON object, got an array")
    }

    @Test("TOLLGATE_CONFIG names the file when no path is passed")
    func configPathFromEnvironment() throws {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let path = try directory.write("c.json", Fixtures.json(["listen": ["port": 9123]]))
        let config = try ConfigLoader.load(path: nil, environment: ["TOLLGATE_CONFIG": path])
        #expect(!config.isDemo && config.listen.port == 9123)
    }

    @Test("trailing slashes are dropped from base URLs")
    func trailingSlash() throws {
        let config = try load(json: Fixtures.json(["base_url": "https://pay.example.com/", "stripe": ["api_base": "http://127.0.0.1:4010/"]]))
        #expect(config.baseURL == "https://pay.example.com")
        #expect(config.stripe.apiBase == "http://127.0.0.1:4010")
    }

    @Test("null means unset: the default applies")
    func nullIsUnset() throws {
        let json =
            #"{"base_url": "https://pay.example.com", "secret_key": "0123456789abcdef0123456789abcdef-test", "app": {"scheme": "exampleapp", "ios": null}, "mail": {"transport": "log"}, "listen": {"port": null}, "log": null, "secret_key_file": null}"#
        let config = try load(json: json)
        #expect(config.listen.port == 8080 && config.log.level == .info)
    }
}
