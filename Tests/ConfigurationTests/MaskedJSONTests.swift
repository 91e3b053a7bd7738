import Foundation
import Testing
@testable import Configuration

@Suite("Masked JSON and documented keys")
struct MaskedJSONTests {
    @Test("maskedJSON contains no secret value, and masks every secret")
    func noSecrets() throws {
        let config = try load(json: Fixtures.specExampleFilledIn)
        let masked = config.maskedJSON()
        let secrets = Fixtures.secrets
        for secret in [
            secrets.secretKey, secrets.serverKey, secrets.stripeKey, secrets.webhookSecret,
            secrets.sharedSecret, secrets.rtdnToken, secrets.smtpPassword
        ] {
            #expect(!masked.contains(secret), "maskedJSON leaks \(secret)")
        }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(masked.utf8)) as? [String: Any])
        #expect(object["secret_key"] as? String == "********")
        #expect((object["stripe"] as? [String: Any])?["webhook_secret"] as? String == "********")
        #expect((object["api_keys"] as? [String: Any])?["server"] as? [String] == ["********"])
        #expect((object["api_keys"] as? [String: Any])?["public"] as? [String] == ["pk_..."])
        #expect((object["listen"] as? [String: Any])?["port"] as? Int == 8080)
        #expect(object["base_url"] as? String == "https://pay.example.com")
    }

    @Test("unset secrets are null; keys are sorted and use the file's names")
    func unsetAndSorted() throws {
        let masked = try load(json: Fixtures.json()).maskedJSON()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(masked.utf8)) as? [String: Any])
        #expect((object["stripe"] as? [String: Any])?["secret_key"] is NSNull)
        #expect(((object["mail"] as? [String: Any])?["smtp"] as? [String: Any])?["password"] is NSNull)
        let topKeys = masked.split(separator: "\n").filter { $0.hasPrefix("  \"") }.map { $0.dropFirst(3).prefix { $0 != "\"" } }
        #expect(topKeys == topKeys.sorted())
        #expect(topKeys.contains("api_keys") && topKeys.contains("base_url") && !topKeys.contains("isDemo"))
        #expect(masked.contains("\"https://api.stripe.com\""))
    }

    @Test("maskedJSON reloads to the same configuration when the secrets are put back")
    func roundTrip() throws {
        let config = try load(json: Fixtures.specExampleFilledIn)
        let environment = [
            "TOLLGATE_SECRET_KEY": config.secretKey, "TOLLGATE_API_KEYS_SERVER": Fixtures.secrets.serverKey,
            "TOLLGATE_STRIPE_SECRET_KEY": Fixtures.secrets.stripeKey, "TOLLGATE_STRIPE_WEBHOOK_SECRET": Fixtures.secrets.webhookSecret,
            "TOLLGATE_APPLE_SHARED_SECRET": Fixtures.secrets.sharedSecret, "TOLLGATE_GOOGLE_RTDN_TOKEN": Fixtures.secrets.rtdnToken,
            "TOLLGATE_MAIL_SMTP_PASSWORD": Fixtures.secrets.smtpPassword
        ]
        let reloaded = try load(json: config.maskedJSON(), environment: environment)
        #expect(reloaded == config)
    }

    @Test("documentedKeys covers every key of the spec's example")
    func documentedKeysCoverSpec() throws {
        let documented = Set(TollgateConfig.documentedKeys().map(\.path))
        let root = try #require(try JSONSerialization.jsonObject(with: Data(Fixtures.specExample.utf8)) as? [String: Any])
        var leaves: [String] = []
        func walk(_ object: [String: Any], _ prefix: String) {
            for (key, value) in object {
                let path = prefix.isEmpty ? key : "\(prefix).\(key)"
                if let child = value as? [String: Any], !documented.contains(path) { walk(child, path) } else { leaves.append(path) }
            }
        }
        walk(root, "")
        #expect(leaves.count == 53)
        #expect(leaves.filter { !documented.contains($0) } == [])
        let secrets = Set(TollgateConfig.documentedKeys().filter(\.secret).map(\.path))
        #expect(
            secrets == [
                "secret_key", "secret_keys", "stripe.secret_key", "stripe.webhook_secret", "stripe.webhook_secrets", "apple.shared_secret",
                "google.rtdn_token", "mail.smtp.password", "api_keys.server", "database.url"
            ], "database.url holds a password")
    }

    @Test("documentedKeys shows defaults as JSON and none for required keys")
    func documentedDefaults() {
        let keys = Dictionary(uniqueKeysWithValues: TollgateConfig.documentedKeys().map { ($0.path, $0) })
        #expect(keys["listen.port"]?.default == "8080")
        #expect(keys["listen.port"]?.type == "integer 0–65535")
        #expect(keys["redemption.on_other_user"]?.default == "\"switch\"")
        #expect(keys["base_url"]?.default == nil && keys["secret_key"]?.default == nil)
        #expect(keys["stripe.secret_key"]?.default == nil)
        #expect(keys["apple.root_certificates"]?.default == #"["certs/AppleRootCA-G3.cer"]"#)
        #expect(keys["base_url"]?.type == "string, required outside demo mode")
        #expect(TollgateConfig.documentedNonKeyVariables == ["TOLLGATE_CONFIG", "TOLLGATE_DEBUG_WRITE_WAITS"])
    }
}
