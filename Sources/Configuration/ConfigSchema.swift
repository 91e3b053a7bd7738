/// The one declaration of every configuration key. Environment-variable names, unknown-key
/// detection, `*_file` secrets, masking and the documented reference are all derived from it.
enum ConfigSchema {
    /// Every key, in the order of the reference documentation: the declared ones, then each
    /// `rate_limits` bucket's (generated from its table).
    static let keys: [ConfigKey] = declared + ConfigKey.rateLimits

    private static let declared: [ConfigKey] = [
        .string("base_url", \.baseURL, required: true),
        .string("listen.host", \.listen.host),
        .integer("listen.port", \.listen.port, minimum: 0, maximum: 65_535),
        .string("database.path", \.database.path),
        .optionalString("database.url", \.database.url, secret: true),
        .integer("database.max_connections", \.database.maxConnections, minimum: 2, maximum: 1000),
        .string("secret_key", \.secretKey, secret: true, required: true),
        .strings("secret_keys", \.secretKeys, secret: true),

        .string("app.name", \.app.name),
        .string("app.scheme", \.app.scheme, required: true),
        .optionalString("app.ios.bundle_id", \.app.ios.bundleID),
        .optionalInteger("app.ios.app_apple_id", \.app.ios.appAppleID, minimum: 1),
        .optionalString("app.ios.team_id", \.app.ios.teamID),
        .optionalString("app.ios.app_store_url", \.app.ios.appStoreURL),
        .optionalString("app.android.package_name", \.app.android.packageName),
        .strings("app.android.sha256_cert_fingerprints", \.app.android.sha256CertFingerprints),
        .optionalString("app.android.play_store_url", \.app.android.playStoreURL),

        .strings("api_keys.public", \.apiKeys.publicKeys),
        .strings("api_keys.server", \.apiKeys.serverKeys, secret: true),
        .strings("admin.tokens_sha256", \.admin.tokensSHA256),
        .adminTokens("admin.tokens", \.admin.tokens),

        .planMap("plans", \.plans),
        .stringListMap("entitlements", \.entitlements),
        .strings("products", \.products),
        .integerMap("products_duration_days", \.productsDurationDays, minimum: 1, maximum: 36_500),

        .optionalString("stripe.secret_key", \.stripe.secretKey, secret: true),
        .optionalString("stripe.webhook_secret", \.stripe.webhookSecret, secret: true),
        .strings("stripe.webhook_secrets", \.stripe.webhookSecrets, secret: true),
        .string("stripe.api_base", \.stripe.apiBase),
        .boolean("stripe.allow_promotion_codes", \.stripe.allowPromotionCodes),
        .boolean("stripe.simulator", \.stripe.simulator),

        .choice("apple.environment", \.apple.environment),
        .strings("apple.root_certificates", \.apple.rootCertificates),
        .optionalString("apple.shared_secret", \.apple.sharedSecret, secret: true),
        .string("apple.verify_receipt_url", \.apple.verifyReceiptURL),
        .string("apple.verify_receipt_sandbox_url", \.apple.verifyReceiptSandboxURL),
        .optionalString("apple.api.issuer_id", \.apple.api.issuerID),
        .optionalString("apple.api.key_id", \.apple.api.keyID),
        .optionalString("apple.api.private_key_path", \.apple.api.privateKeyPath),
        .string("apple.api.base_url", \.apple.api.baseURL),
        .string("apple.api.sandbox_base_url", \.apple.api.sandboxBaseURL),
        .string("apple.api.external_purchase_base_url", \.apple.api.externalPurchaseBaseURL),
        .string("apple.api.external_purchase_sandbox_base_url", \.apple.api.externalPurchaseSandboxBaseURL),
        .boolean("apple.consumption.enabled", \.apple.consumption.enabled),
        .boolean("apple.consumption.sample_content_provided", \.apple.consumption.sampleContentProvided),

        .optionalString("google.service_account_path", \.google.serviceAccountPath),
        .string("google.api_base", \.google.apiBase),
        .optionalString("google.rtdn_token", \.google.rtdnToken, secret: true),

        .choice("redemption.mode", \.redemption.mode),
        .strings("redemption.redirect_urls", \.redemption.redirectURLs),
        .integer("redemption.code_ttl_seconds", \.redemption.codeTTLSeconds, minimum: 1),
        .choice("redemption.on_other_user", \.redemption.onOtherUser),
        .integer("redemption.max_devices", \.redemption.maxDevices, minimum: 1),
        .integer("redemption.resend_interval_seconds", \.redemption.resendIntervalSeconds, minimum: 0),
        .increasingIntegers("redemption.reminders", \.redemption.reminders),

        .string("mail.from", \.mail.from),
        .choice("mail.transport", \.mail.transport),
        .string("mail.file_dir", \.mail.fileDir),
        .optionalString("mail.smtp.host", \.mail.smtp.host),
        .integer("mail.smtp.port", \.mail.smtp.port, minimum: 1, maximum: 65_535),
        .choice("mail.smtp.security", \.mail.smtp.security),
        .optionalString("mail.smtp.username", \.mail.smtp.username),
        .optionalString("mail.smtp.password", \.mail.smtp.password, secret: true),
        .optionalString("mail.smtp.ca_file", \.mail.smtp.caFile),

        .strings("http.trusted_proxies", \.http.trustedProxies),
        .integer("http.max_body_bytes", \.http.maxBodyBytes, minimum: 1),
        .integer("http.max_connections", \.http.maxConnections, minimum: 1),
        .integer("http.max_connections_per_client", \.http.maxConnectionsPerClient, minimum: 1),
        .integer("http.header_read_timeout_seconds", \.http.headerReadTimeoutSeconds, minimum: 1),
        .integer("http.request_timeout_seconds", \.http.requestTimeoutSeconds, minimum: 1),
        .integer("http.keep_alive_timeout_seconds", \.http.keepAliveTimeoutSeconds, minimum: 1),

        .eventEndpoints("events.endpoints", \.events.endpoints),

        .integer("retention.sessions_days", \.retention.sessionsDays, minimum: 1, maximum: 3650),
        .integer("retention.idempotency_days", \.retention.idempotencyDays, minimum: 1, maximum: 3650),
        .integer("retention.mail_days", \.retention.mailDays, minimum: 1, maximum: 3650),
        .integer("retention.events_days", \.retention.eventsDays, minimum: 1, maximum: 3650),
        .integer("retention.webhook_ids_days", \.retention.webhookIDsDays, minimum: 1, maximum: 3650),

        .integer("reconcile.interval_seconds", \.reconcile.intervalSeconds, minimum: 0, maximum: 86_400),

        .linkOutRules("link_out.rules", \.linkOut.rules),

        .choice("checkout.on_already_entitled", \.checkout.onAlreadyEntitled),

        .string("locales.default", \.locales.defaultLanguage),
        .optionalString("locales.dir", \.locales.dir),

        .choice("log.level", \.log.level),

        .boolean("console.enabled", \.console.enabled),

        .string("paths.templates_dir", \.paths.templatesDir),
        .string("paths.public_dir", \.paths.publicDir)
    ]

    /// `TOLLGATE_*` variables that are not configuration keys: the config file's path, and the
    /// writer's debug measure of where writes wait (read by Storage's `WriteWaits`).
    static let nonKeyEnvironmentVariables: Set<String> = ["TOLLGATE_CONFIG", "TOLLGATE_DEBUG_WRITE_WAITS"]

    /// The suffix of a key naming a file that holds a secret (`secret_key_file`).
    static let fileSuffix = "_file"

    static let byPath: [String: ConfigKey] = Dictionary(keys.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })

    /// Environment variable name → key, and whether it is the `_FILE` form.
    static let byEnvironmentName: [String: (key: ConfigKey, isFile: Bool)] = {
        var table: [String: (key: ConfigKey, isFile: Bool)] = [:]
        for key in keys {
            table[key.environmentName] = (key, false)
            if key.isSecret {
                table[key.environmentName + "_FILE"] = (key, true)
            }
        }
        return table
    }()

    /// Every object that groups keys (`listen`, `app`, `app.ios`, ...); the root is "".
    static let sections: Set<String> = {
        var result: Set<String> = [""]
        for key in keys {
            var components = key.path.split(separator: ".").map(String.init)
            components.removeLast()
            while !components.isEmpty {
                result.insert(components.joined(separator: "."))
                components.removeLast()
            }
        }
        return result
    }()

    /// The names allowed directly inside `section` (keys, sub-sections and `*_file` forms).
    static func childNames(of section: String) -> [String] {
        let prefix = section.isEmpty ? "" : section + "."
        var names: Set<String> = []
        for key in keys where key.path.hasPrefix(prefix) {
            let rest = key.path.dropFirst(prefix.count)
            let first = String(rest.prefix { $0 != "." })
            names.insert(first)
            if key.isSecret, !rest.contains(".") {
                names.insert(first + fileSuffix)
            }
        }
        return names.sorted()
    }
}
