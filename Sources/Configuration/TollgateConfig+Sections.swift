// The sections of `TollgateConfig`. Each `init()` holds the defaults of its keys; the schema
// (`ConfigSchema`) reads them to document defaults, so they are written down only here.

extension TollgateConfig {
    /// `listen`: bind address and port.
    public struct Listen: Sendable, Equatable {
        /// `listen.host`, default `0.0.0.0` (`127.0.0.1` in demo mode).
        public var host = "0.0.0.0"
        /// `listen.port`, 0–65535 (0: any free port, logged at start-up), default 8080.
        public var port = 8080
        /// The defaults.
        public init() {}

        /// The address this host reaches the service at when it listens on `port` (the bound
        /// one, which differs from `port` when that is 0): the loopback for a wildcard or
        /// loopback host, else the host itself.
        public func localURL(port: Int) -> String {
            switch host {
            case "0.0.0.0", "127.0.0.1", "localhost", "": return "http://127.0.0.1:\(port)"
            case "::", "::1", "[::]", "[::1]": return "http://[::1]:\(port)"
            default: return host.contains(":") && !host.hasPrefix("[") ? "http://[\(host)]:\(port)" : "http://\(host):\(port)"
            }
        }
    }

    /// `database`: the SQLite database (`path`), or a PostgreSQL one (`url`) shared by any number
    /// of instances.
    public struct Database: Sendable, Equatable {
        /// `database.path`, default `data/tollgate.sqlite`.
        public var path = "data/tollgate.sqlite"
        /// `database.url`: `postgres://user:password@host:5432/db?sslmode=require`; when set, it is
        /// used instead of `path`. A secret (it may hold the password).
        public var url: String?
        /// `database.max_connections`: PostgreSQL connections this instance opens at most (a few
        /// for writes, the rest for reads), default 10. Budget `max_connections` of the server for
        /// every instance. Not used with SQLite.
        public var maxConnections = 10
        /// The defaults.
        public init() {}
    }

    /// `app`: the app users are sent back to.
    public struct App: Sendable, Equatable {
        /// `app.name`, shown on pages and in mail.
        public var name = "Tollgate"
        /// `app.scheme`: the app's URL scheme (`{scheme}://redeem?code=...`).
        public var scheme = ""
        /// `app.ios`.
        public var ios = IOS()
        /// `app.android`.
        public var android = Android()
        /// The defaults.
        public init() {}

        /// `app.ios`: the iOS app's identity (universal links, App Store checks).
        public struct IOS: Sendable, Equatable {
            /// `app.ios.bundle_id`.
            public var bundleID: String?
            /// `app.ios.app_apple_id`: the numeric App Store id.
            public var appAppleID: Int?
            /// `app.ios.team_id`: ten upper-case letters and digits.
            public var teamID: String?
            /// `app.ios.app_store_url`.
            public var appStoreURL: String?
            /// The defaults (all unset).
            public init() {}
        }

        /// `app.android`: the Android app's identity (app links, Play checks).
        public struct Android: Sendable, Equatable {
            /// `app.android.package_name`.
            public var packageName: String?
            /// `app.android.sha256_cert_fingerprints`, normalised to `AB:CD:...` upper case.
            public var sha256CertFingerprints: [String] = []
            /// `app.android.play_store_url`.
            public var playStoreURL: String?
            /// The defaults (all unset).
            public init() {}
        }
    }

    /// `api_keys`: keys accepted in `X-Api-Key` / `X-API-KEY`.
    public struct APIKeys: Sendable, Equatable {
        /// `api_keys.public`: keys shipped in apps.
        public var publicKeys: [String] = []
        /// `api_keys.server` (secret): keys of partner backends (`/receipts`).
        public var serverKeys: [String] = []
        /// The defaults (none).
        public init() {}
    }

    /// `admin`: operator access to `/admin/v1/*`.
    public struct Admin: Sendable, Equatable {
        /// `admin.tokens_sha256`: lower-case hex SHA-256 of each admin bearer token.
        public var tokensSHA256: [String] = []
        /// `admin.tokens`: named admin tokens (the name goes to the audit log).
        public var tokens: [AdminToken] = []
        /// The defaults (no admin token: the admin API refuses everyone).
        public init() {}
    }

    /// `plans.<name>`: one checkout plan.
    public struct Plan: Sendable, Equatable {
        /// `price_id`: the Stripe price.
        public var priceID: String
        /// `mode`: `subscription` (default) or `payment`.
        public var mode: PlanMode
        /// A plan for `priceID`.
        public init(priceID: String, mode: PlanMode = .subscription) {
            self.priceID = priceID
            self.mode = mode
        }
    }

    /// `stripe`: Stripe credentials and endpoints.
    public struct Stripe: Sendable, Equatable {
        /// `stripe.secret_key` (secret).
        public var secretKey: String?
        /// `stripe.webhook_secret` (secret): the `whsec_...` signing secret.
        public var webhookSecret: String?
        /// `stripe.webhook_secrets` (secret): instead of `webhook_secret` while Stripe rolls its
        /// signing secret, newest first; an event signed with any of them is accepted.
        public var webhookSecrets: [String] = []
        /// The signing secrets events are verified with: `webhook_secrets`, or the one `webhook_secret`.
        public var webhookSecretList: [String] { webhookSecrets.isEmpty ? webhookSecret.map { [$0] } ?? [] : webhookSecrets }
        /// `stripe.api_base`, default `https://api.stripe.com`.
        public var apiBase = "https://api.stripe.com"
        /// `stripe.allow_promotion_codes`: let buyers enter Stripe promotion codes at checkout.
        public var allowPromotionCodes = false
        /// `stripe.simulator`: the built-in Stripe simulator stands in for Stripe (demo mode turns
        /// it on when no `stripe.secret_key` is set; never on together with a secret key).
        public var simulator = false
        /// The defaults.
        public init() {}
    }

    /// `apple`: App Store verification.
    public struct Apple: Sendable, Equatable {
        /// `apple.environment`, default `Production`.
        public var environment = AppleEnvironment.production
        /// `apple.root_certificates`: DER files of the trusted Apple roots.
        public var rootCertificates = ["certs/AppleRootCA-G3.cer"]
        /// `apple.shared_secret` (secret): for verifyReceipt.
        public var sharedSecret: String?
        /// `apple.verify_receipt_url`.
        public var verifyReceiptURL = "https://buy.itunes.apple.com/verifyReceipt"
        /// `apple.verify_receipt_sandbox_url`.
        public var verifyReceiptSandboxURL = "https://sandbox.itunes.apple.com/verifyReceipt"
        /// `apple.api`: App Store Server API.
        public var api = API()
        /// `apple.consumption`: answering refund requests (`CONSUMPTION_REQUEST`).
        public var consumption = Consumption()
        /// The defaults.
        public init() {}

        /// `apple.api`: App Store Server API credentials and hosts.
        public struct API: Sendable, Equatable {
            /// `apple.api.issuer_id`.
            public var issuerID: String?
            /// `apple.api.key_id`.
            public var keyID: String?
            /// `apple.api.private_key_path`: the `.p8` file.
            public var privateKeyPath: String?
            /// `apple.api.base_url`.
            public var baseURL = "https://api.storekit.itunes.apple.com"
            /// `apple.api.sandbox_base_url`.
            public var sandboxBaseURL = "https://api.storekit-sandbox.itunes.apple.com"
            /// `apple.api.external_purchase_base_url`: the External Purchase Server API (link-out reports).
            public var externalPurchaseBaseURL = "https://api.storekit.apple.com/externalPurchase"
            /// `apple.api.external_purchase_sandbox_base_url`: where reports of sandbox tokens go.
            public var externalPurchaseSandboxBaseURL = "https://api.storekit-sandbox.apple.com/externalPurchase"
            /// The defaults.
            public init() {}
        }
    }

    /// `google`: Google Play verification.
    public struct Google: Sendable, Equatable {
        /// `google.service_account_path`: the service account JSON file.
        public var serviceAccountPath: String?
        /// `google.api_base`, default `https://androidpublisher.googleapis.com`.
        public var apiBase = "https://androidpublisher.googleapis.com"
        /// `google.rtdn_token` (secret): the `?token=` of the RTDN push URL.
        public var rtdnToken: String?
        /// The defaults.
        public init() {}
    }

    /// `redemption`: redemption codes.
    public struct Redemption: Sendable, Equatable {
        /// `redemption.mode`, default `redeem`.
        public var mode = RedemptionMode.redeem
        /// `redemption.redirect_urls`: the only targets of redirect mode.
        public var redirectURLs: [String] = []
        /// `redemption.code_ttl_seconds`, default 259200 (72 h).
        public var codeTTLSeconds = 259_200
        /// `redemption.on_other_user`, default `switch`.
        public var onOtherUser = OnOtherUser.switch
        /// `redemption.max_devices`, default 5.
        public var maxDevices = 5
        /// `redemption.resend_interval_seconds`, default 600.
        public var resendIntervalSeconds = 600
        /// `redemption.reminders`: seconds after payment of each reminder mail; unset: `[3600, 86400]`
        /// in redeem mode, none in redirect mode (`effectiveReminders`); `[]`: off.
        public var reminders: [Int]?
        /// The defaults.
        public init() {}
    }

    /// `mail`: outgoing email.
    public struct Mail: Sendable, Equatable {
        /// `mail.from`: the sender (`Name <address>`); required with SMTP.
        public var from = "Tollgate <no-reply@localhost>"
        /// `mail.transport`, default `smtp` (`file` in demo mode).
        public var transport = MailTransport.smtp
        /// `mail.file_dir`: where the `file` transport writes messages.
        public var fileDir = "data/mail"
        /// `mail.smtp`.
        public var smtp = SMTP()
        /// The defaults.
        public init() {}

        /// `mail.smtp`: the SMTP relay.
        public struct SMTP: Sendable, Equatable {
            /// `mail.smtp.host`: required when `mail.transport` is `smtp`.
            public var host: String?
            /// `mail.smtp.port`, default 587.
            public var port = 587
            /// `mail.smtp.security`, default `starttls`.
            public var security = SMTPSecurity.starttls
            /// `mail.smtp.username`.
            public var username: String?
            /// `mail.smtp.password` (secret).
            public var password: String?
            /// `mail.smtp.ca_file`: a PEM bundle to trust instead of the system store.
            public var caFile: String?
            /// The defaults.
            public init() {}
        }
    }

    /// `http`: HTTP server settings.
    public struct HTTP: Sendable, Equatable {
        /// `http.trusted_proxies`: CIDRs whose `X-Forwarded-For` is believed.
        public var trustedProxies: [String] = []
        /// `http.max_body_bytes`, default 1 MiB.
        public var maxBodyBytes = 1_048_576
        /// `http.max_connections`, default 10000.
        public var maxConnections = 10_000
        /// `http.max_connections_per_client`: connections one socket peer address may hold, default 256.
        public var maxConnectionsPerClient = 256
        /// `http.request_timeout_seconds`: a whole request (head and body) must arrive within this
        /// many seconds of its first byte, default 60.
        public var requestTimeoutSeconds = 60
        /// `http.header_read_timeout_seconds`, default 10.
        public var headerReadTimeoutSeconds = 10
        /// `http.keep_alive_timeout_seconds`, default 60.
        public var keepAliveTimeoutSeconds = 60
        /// The defaults.
        public init() {}

        /// `trustedProxies` parsed (every entry is valid once loaded).
        public var trustedProxyNetworks: [CIDR] {
            trustedProxies.compactMap { CIDR($0) }
        }
    }

    /// `log`: logging.
    public struct Log: Sendable, Equatable {
        /// `log.level`, default `info`.
        public var level = LogLevel.info
        /// The defaults.
        public init() {}
    }

    /// `paths`: directories read at start-up.
    public struct Paths: Sendable, Equatable {
        /// `paths.templates_dir`, default `templates`.
        public var templatesDir = "templates"
        /// `paths.public_dir`: served under `/static/`, default `Public`.
        public var publicDir = "Public"
        /// The defaults.
        public init() {}
    }
}
