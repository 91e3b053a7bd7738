import Foundation
import Testing
@testable import Configuration

/// A fresh directory per test, removed by `remove()`.
struct TempDirectory {
    let path: String

    init() throws {
        path = (NSTemporaryDirectory() as NSString).appendingPathComponent("tollgate-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Writes `text` to `name` inside the directory and returns its path.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let file = (path as NSString).appendingPathComponent(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    func file(_ name: String) -> String {
        (path as NSString).appendingPathComponent(name)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

enum Fixtures {
    /// The example of API.md, section "Configuration (operators)", verbatim.
    static let specExample = #"""
        {
          "base_url": "https://pay.example.com",
          "listen": {"host": "0.0.0.0", "port": 8080},
          "database": {"path": "data/tollgate.sqlite"},
          "secret_key": "long random string: HMAC key for obfuscated ids and signed links",
          "app": {
            "name": "Example", "scheme": "exampleapp",
            "ios": {"bundle_id": "com.example.app", "app_apple_id": 1234567890, "team_id": "ABCDE12345",
                    "app_store_url": "https://apps.apple.com/app/id1234567890"},
            "android": {"package_name": "com.example.app", "sha256_cert_fingerprints": ["AB:CD:..."],
                        "play_store_url": "https://play.google.com/store/apps/details?id=com.example.app"}
          },
          "api_keys": {"public": ["pk_..."], "server": ["sk_..."]},
          "admin": {"tokens_sha256": ["hex sha-256 of each admin bearer token"]},
          "plans": {"monthly": {"price_id": "price_123", "mode": "subscription"}},
          "entitlements": {"premium": ["price_123", "com.example.monthly", "monthly_sub"]},
          "products": ["com.example.monthly"],
          "stripe": {"secret_key": "sk_test_...", "webhook_secret": "whsec_...", "api_base": "https://api.stripe.com"},
          "apple": {"environment": "Production", "root_certificates": ["certs/AppleRootCA-G3.cer"],
                    "shared_secret": "...", "verify_receipt_url": "https://buy.itunes.apple.com/verifyReceipt",
                    "verify_receipt_sandbox_url": "https://sandbox.itunes.apple.com/verifyReceipt",
                    "api": {"issuer_id": "...", "key_id": "...", "private_key_path": "AuthKey.p8",
                            "base_url": "https://api.storekit.itunes.apple.com",
                            "sandbox_base_url": "https://api.storekit-sandbox.itunes.apple.com"}},
          "google": {"service_account_path": "play-service-account.json",
                     "api_base": "https://androidpublisher.googleapis.com", "rtdn_token": "..."},
          "redemption": {"mode": "redeem", "redirect_urls": ["https://example.com/welcome"],
                         "code_ttl_seconds": 259200, "on_other_user": "switch", "max_devices": 5,
                         "resend_interval_seconds": 600},
          "mail": {"from": "Example <no-reply@example.com>", "transport": "smtp", "file_dir": "data/mail",
                   "smtp": {"host": "smtp.example.com", "port": 587, "security": "starttls | tls | none",
                            "username": "...", "password": "...", "ca_file": null}},
          "http": {"trusted_proxies": ["127.0.0.1/32"], "max_body_bytes": 1048576}
        }
        """#

    static let fingerprint = "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"
    static let tokenHash = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

    /// The spec example with its three placeholders ("starttls | tls | none", a prose token hash,
    /// "AB:CD:...") replaced by real values and the other secrets made distinct and realistic.
    static var specExampleFilledIn: String {
        specExample
            .replacingOccurrences(of: "\"starttls | tls | none\"", with: "\"starttls\"")
            .replacingOccurrences(of: "hex sha-256 of each admin bearer token", with: tokenHash)
            .replacingOccurrences(of: "AB:CD:...", with: fingerprint)
            .replacingOccurrences(of: "\"sk_...\"", with: "\"\(secrets.serverKey)\"")
            .replacingOccurrences(of: "sk_test_...", with: secrets.stripeKey)
            .replacingOccurrences(of: "whsec_...", with: secrets.webhookSecret)
            .replacingOccurrences(of: "\"shared_secret\": \"...\"", with: "\"shared_secret\": \"\(secrets.sharedSecret)\"")
            .replacingOccurrences(of: "\"rtdn_token\": \"...\"", with: "\"rtdn_token\": \"\(secrets.rtdnToken)\"")
            .replacingOccurrences(of: "\"password\": \"...\"", with: "\"password\": \"\(secrets.smtpPassword)\"")
    }

    /// Distinct secret values of `specExampleFilledIn`, for masking tests.
    static let secrets = (
        secretKey: "long random string: HMAC key for obfuscated ids and signed links",
        serverKey: "sk_server_Q1w2E3r4T5y6",
        stripeKey: "sk_test_51HxYzAbCdEf",
        webhookSecret: "whsec_9a8b7c6d5e4f",
        sharedSecret: "apple-shared-0f1e2d3c",
        rtdnToken: "rtdn-token-77aa88bb",
        smtpPassword: "smtp-pass-Zx9Yw8"
    )

    /// The smallest valid configuration file.
    static var minimal: [String: Any] {
        [
            "base_url": "https://pay.example.com",
            "secret_key": "0123456789abcdef0123456789abcdef-test",
            "app": ["scheme": "exampleapp"],
            "mail": ["transport": "log"]
        ]
    }

    /// `minimal` deep-merged with `overrides` (a nested dictionary; `NSNull()` removes a key).
    static func json(_ overrides: [String: Any] = [:], base: [String: Any] = minimal) -> String {
        let merged = merge(base, overrides)
        let data = (try? JSONSerialization.data(withJSONObject: merged, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    private static func merge(_ base: [String: Any], _ overrides: [String: Any]) -> [String: Any] {
        var result = base
        for (key, value) in overrides {
            if value is NSNull {
                result[key] = nil
            } else if let inner = value as? [String: Any], let existing = result[key] as? [String: Any] {
                result[key] = merge(existing, inner)
            } else {
                result[key] = value
            }
        }
        return result
    }
}

/// Writes `json` to a fresh temp file and loads it with `environment`.
func load(json: String, environment: [String: String] = [:]) throws -> TollgateConfig {
    let directory = try TempDirectory()
    defer { directory.remove() }
    let path = try directory.write("tollgate.json", json)
    return try ConfigLoader.load(path: path, environment: environment)
}

/// The problems of loading `json` (fails the test when it loads).
func problems(
    json: String, environment: [String: String] = [:],
    sourceLocation: SourceLocation = #_sourceLocation
) -> [ConfigError.Problem] {
    do {
        _ = try load(json: json, environment: environment)
        Issue.record("expected a ConfigError", sourceLocation: sourceLocation)
        return []
    } catch let error as ConfigError {
        return error.problems
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        return []
    }
}

/// The single problem for `keyPath`, failing the test when there is none.
func problem(
    _ keyPath: String, in problems: [ConfigError.Problem],
    sourceLocation: SourceLocation = #_sourceLocation
) -> ConfigError.Problem? {
    let match = problems.first { $0.keyPath == keyPath }
    if match == nil {
        Issue.record("no problem for \(keyPath); got \(problems.map(\.description))", sourceLocation: sourceLocation)
    }
    return match
}
