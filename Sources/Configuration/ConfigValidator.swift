import Foundation
import JSON

/// The checks that span keys or need more than a type: URLs, CIDRs, hashes, required keys.
/// Also normalises a few values (trailing slashes of base URLs, hex case).
struct ConfigValidator {
    /// Where each explicitly set key came from.
    let sources: [String: ConfigError.Source]
    /// Blamed for a key that is missing: the config file, or the defaults in demo mode.
    let fallback: ConfigError.Source
    private(set) var problems: [ConfigError.Problem] = []

    init(sources: [String: ConfigError.Source], fallback: ConfigError.Source) {
        self.sources = sources
        self.fallback = fallback
    }

    private func isSet(_ path: String) -> Bool { sources[path] != nil }

    private mutating func report(_ path: String, _ message: String) {
        let source = sources[path] ?? sources[path.split(separator: "[").first.map(String.init) ?? path] ?? fallback
        problems.append(ConfigError.Problem(keyPath: path, source: source, message: message))
    }

    /// Runs every check on `config`, normalising where a value is acceptable but not canonical.
    mutating func validate(_ config: inout TollgateConfig) {
        let demo = config.isDemo

        // Core
        if config.baseURL.isEmpty {
            report("base_url", "required: the public URL of this service, e.g. https://pay.example.com")
        } else if let message = URLCheck.problem(config.baseURL, rule: .base) {
            report("base_url", message)
        } else {
            config.baseURL = URLCheck.trimmingTrailingSlashes(config.baseURL)
        }
        if !config.secretKeys.isEmpty {
            checkSecretKeys(config)
        } else if config.secretKey.isEmpty {
            if !demo {
                report("secret_key", "required outside demo mode: at least 32 random characters (e.g. the output of `openssl rand -hex 32`)")
            }
        } else if config.secretKey.count < 32 {
            report("secret_key", "must be at least 32 characters; got \(config.secretKey.count)")
        }

        if let url = config.database.url, !(url.hasPrefix("postgres://") || url.hasPrefix("postgresql://")) {
            report("database.url", "must be a PostgreSQL URL, postgres://user:password@host:5432/db?sslmode=require")
        }

        // App
        if config.app.scheme.isEmpty {
            report("app.scheme", "required: the app's URL scheme, e.g. exampleapp (for exampleapp://redeem?code=...)")
        } else if !Self.isURLScheme(config.app.scheme) {
            report(
                "app.scheme",
                "must be a URL scheme (a letter, then letters, digits, +, - or .) without ://; got \(JSONValue.quoted(config.app.scheme))")
        }
        if let team = config.app.ios.teamID,
            !(team.count == 10 && team.allSatisfy { $0.isASCII && ($0.isUppercase || $0.isNumber) })
        {
            report("app.ios.team_id", "must be 10 upper-case letters and digits (Apple Developer Team ID); got \(JSONValue.quoted(team))")
        }
        checkURL(config.app.ios.appStoreURL, "app.ios.app_store_url", rule: .page)
        checkURL(config.app.android.playStoreURL, "app.android.play_store_url", rule: .page)
        for (index, fingerprint) in config.app.android.sha256CertFingerprints.enumerated() {
            if let normalized = Self.normalizedFingerprint(fingerprint) {
                config.app.android.sha256CertFingerprints[index] = normalized
            } else {
                report(
                    "app.android.sha256_cert_fingerprints[\(index)]",
                    "must be a SHA-256 certificate fingerprint: 32 hex bytes separated by colons (AB:CD:...); got \(JSONValue.quoted(fingerprint))")
            }
        }

        // Keys and tokens: never echo them.
        let publicKeys = Set(config.apiKeys.publicKeys)
        if config.apiKeys.serverKeys.contains(where: { publicKeys.contains($0) }) {
            report("api_keys.server", "a server key is also listed in api_keys.public; server keys must stay secret")
        }
        for (index, token) in config.admin.tokensSHA256.enumerated() {
            let lower = token.lowercased()
            if lower.utf8.count == 64, lower.utf8.allSatisfy({ Self.isHexDigit($0) }) {
                config.admin.tokensSHA256[index] = lower
            } else {
                report(
                    "admin.tokens_sha256[\(index)]",
                    "must be 64 hex characters, the SHA-256 of an admin token (printf %s \"$TOKEN\" | sha256sum); got \(token.count) characters")
            }
        }

        // Payments
        if config.stripe.simulator, config.stripe.secretKey != nil {
            report(
                "stripe.simulator",
                "cannot be true while stripe.secret_key is set: the Stripe simulator never stands in for a real Stripe account; remove stripe.simulator or stripe.secret_key"
            )
        } else if demo, !isSet("stripe.simulator"), config.stripe.secretKey == nil {
            config.stripe.simulator = true
        }
        if !config.plans.isEmpty, !demo, !config.stripe.simulator {
            if config.stripe.secretKey == nil {
                report("stripe.secret_key", "required when plans are configured (Stripe Checkout needs it)")
            }
            if config.stripe.webhookSecretList.isEmpty {
                report(
                    "stripe.webhook_secret", "required when plans are configured (to verify Stripe webhooks; or stripe.webhook_secrets during a roll)"
                )
            }
        }
        checkWebhookSecrets(config.stripe)
        checkAppleEnvironment(config)
        // A duration for a product nothing grants is a typo: it would silently never apply.
        let granted = Set(config.entitlements.values.joined()).union(config.products)
        for product in config.productsDurationDays.keys.sorted() where !granted.contains(product) {
            report("products_duration_days.\(product)", "names a product that is in neither entitlements nor products")
        }
        checkBaseURL(&config.stripe.apiBase, "stripe.api_base")
        checkURL(config.apple.verifyReceiptURL, "apple.verify_receipt_url", rule: .base)
        checkURL(config.apple.verifyReceiptSandboxURL, "apple.verify_receipt_sandbox_url", rule: .base)
        checkBaseURL(&config.apple.api.baseURL, "apple.api.base_url")
        checkBaseURL(&config.apple.api.sandboxBaseURL, "apple.api.sandbox_base_url")
        checkBaseURL(&config.apple.api.externalPurchaseBaseURL, "apple.api.external_purchase_base_url")
        checkBaseURL(&config.apple.api.externalPurchaseSandboxBaseURL, "apple.api.external_purchase_sandbox_base_url")
        let apiParts = [
            ("issuer_id", config.apple.api.issuerID), ("key_id", config.apple.api.keyID),
            ("private_key_path", config.apple.api.privateKeyPath)
        ]
        let missing = apiParts.filter { $0.1 == nil }.map(\.0)
        if !missing.isEmpty, missing.count < apiParts.count {
            for name in missing {
                report("apple.api.\(name)", "required when any of apple.api.issuer_id, key_id, private_key_path is set")
            }
        }
        checkBaseURL(&config.google.apiBase, "google.api_base")

        // Redemption
        for (index, url) in config.redemption.redirectURLs.enumerated() {
            checkURL(url, "redemption.redirect_urls[\(index)]", rule: .redirect)
        }
        if config.redemption.mode == .redirect, config.redemption.redirectURLs.isEmpty {
            report("redemption.redirect_urls", "required when redemption.mode is redirect: at least one https URL")
        }

        // Mail
        if config.mail.transport == .smtp {
            if config.mail.smtp.host == nil {
                report("mail.smtp.host", "required when mail.transport is smtp (or set mail.transport to file or log)")
            }
            if !isSet("mail.from") {
                report("mail.from", "required when mail.transport is smtp, e.g. \"Example <no-reply@example.com>\"")
            }
        }
        if !config.mail.from.contains("@") {
            report("mail.from", "must contain an email address, e.g. \"Example <no-reply@example.com>\"; got \(JSONValue.quoted(config.mail.from))")
        }
        if (config.mail.smtp.username == nil) != (config.mail.smtp.password == nil) {
            let missingKey = config.mail.smtp.username == nil ? "mail.smtp.username" : "mail.smtp.password"
            report(missingKey, "required when the other of mail.smtp.username / mail.smtp.password is set")
        }

        // HTTP
        for (index, entry) in config.http.trustedProxies.enumerated() where CIDR(entry) == nil {
            report(
                "http.trusted_proxies[\(index)]",
                "must be an IPv4 or IPv6 address or CIDR (10.0.0.0/8, 2001:db8::/32); got \(JSONValue.quoted(entry))")
        }
    }

    /// `secret_keys` replaces `secret_key` (never both): each entry at least 32 bytes, none repeated.
    private mutating func checkSecretKeys(_ config: TollgateConfig) {
        if !config.secretKey.isEmpty {
            report("secret_keys", "set either secret_key or secret_keys (a list, newest first, during a rotation), not both")
        }
        var seen = Set<String>()
        for (index, key) in config.secretKeys.enumerated() {
            if key.utf8.count < 32 {
                report("secret_keys[\(index)]", "must be at least 32 bytes; got \(key.utf8.count)")
            } else if !seen.insert(key).inserted {
                report("secret_keys[\(index)]", "repeats an earlier entry of the list")
            }
        }
    }

    /// `stripe.webhook_secrets` replaces `stripe.webhook_secret` (never both); no empty or repeated entry.
    private mutating func checkWebhookSecrets(_ stripe: TollgateConfig.Stripe) {
        if stripe.webhookSecret != nil, !stripe.webhookSecrets.isEmpty {
            report("stripe.webhook_secrets", "set either stripe.webhook_secret or stripe.webhook_secrets (a list, during a roll), not both")
        }
        var seen = Set<String>()
        for (index, secret) in stripe.webhookSecrets.enumerated() {
            if secret.isEmpty {
                report("stripe.webhook_secrets[\(index)]", "must not be empty")
            } else if !seen.insert(secret).inserted {
                report("stripe.webhook_secrets[\(index)]", "repeats an earlier entry of the list")
            }
        }
    }

    /// `apple.environment: Xcode` checks no signature at all (StoreKit testing signs with a local
    /// certificate): only for a service nobody else can reach, on loopback and not behind https,
    /// or in demo mode.
    private mutating func checkAppleEnvironment(_ config: TollgateConfig) {
        guard config.apple.environment == .xcode, !config.isDemo else { return }
        let loopback = Self.isLoopback(config.listen.host)
        let https = config.baseURL.lowercased().hasPrefix("https://")
        guard !loopback || https else { return }
        let why =
            !loopback
            ? "listen.host is \(JSONValue.quoted(config.listen.host)), not loopback"
            : "base_url is https, so the service is published"
        report(
            "apple.environment",
            "Xcode verifies no signature (anyone could forge a purchase): allowed only when the service listens on loopback (listen.host 127.0.0.1, ::1 or localhost) and base_url is not https, or in demo mode; \(why). Use Sandbox or Production"
        )
    }

    /// Whether `host` is a loopback address or `localhost` (nothing off this machine reaches it).
    static func isLoopback(_ host: String) -> Bool {
        let lower = host.lowercased()
        if lower == "localhost" || lower == "::1" || lower == "[::1]" { return true }
        let octets = lower.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    private mutating func checkURL(_ url: String?, _ path: String, rule: URLCheck.Rule) {
        guard let url, let message = URLCheck.problem(url, rule: rule) else { return }
        report(path, message)
    }

    private mutating func checkBaseURL(_ url: inout String, _ path: String) {
        if let message = URLCheck.problem(url, rule: .base) {
            report(path, message)
        } else {
            url = URLCheck.trimmingTrailingSlashes(url)
        }
    }

    static func isURLScheme(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return false }
        return text.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "+-.".unicodeScalars.contains(scalar))
        }
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    /// `ab:cd:...` or 64 bare hex digits → `AB:CD:...`; nil when it is not 32 hex bytes.
    static func normalizedFingerprint(_ text: String) -> String? {
        let hex = text.uppercased().filter { $0 != ":" }
        guard hex.utf8.count == 64, hex.utf8.allSatisfy({ isHexDigit($0) }) else { return nil }
        if text.contains(":") {
            let groups = text.split(separator: ":", omittingEmptySubsequences: false)
            guard groups.count == 32, groups.allSatisfy({ $0.count == 2 }) else { return nil }
        }
        var pairs: [String] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            pairs.append(String(hex[index..<next]))
            index = next
        }
        return pairs.joined(separator: ":")
    }
}

/// URL rules of the configuration.
enum URLCheck {
    enum Rule {
        /// An absolute http(s) URL without query or fragment (base URLs, API endpoints).
        case base
        /// An absolute http(s) URL; a query is allowed (store pages).
        case page
        /// An https URL (http only for localhost / 127.0.0.1 / ::1), query allowed, no fragment.
        case redirect
    }

    /// What is wrong with `text` under `rule`, or nil when it is acceptable.
    static func problem(_ text: String, rule: Rule) -> String? {
        let got = JSONValue.quoted(text)
        guard let components = URLComponents(string: text),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty
        else {
            return "must be an absolute http or https URL like https://pay.example.com; got \(got)"
        }
        if components.user != nil || components.password != nil {
            return "must not contain a user name or password; got a URL with credentials"
        }
        switch rule {
        case .base:
            if components.query != nil || components.fragment != nil {
                return "must not have a query (?...) or fragment (#...); got \(got)"
            }
        case .page:
            break
        case .redirect:
            if components.fragment != nil {
                return "must not have a fragment (#...); got \(got)"
            }
            let local = ["localhost", "127.0.0.1", "[::1]", "::1"].contains(host.lowercased())
            if scheme != "https", !local {
                return "must use https (http is allowed only for localhost and 127.0.0.1); got \(got)"
            }
        }
        return nil
    }

    static func trimmingTrailingSlashes(_ text: String) -> String {
        var result = Substring(text)
        while result.hasSuffix("/") { result = result.dropLast() }
        return String(result)
    }
}
