/// The effective Tollgate configuration: every key typed, defaults applied, validated.
///
/// Built by `ConfigLoader.load(path:environment:)`. `init()` gives the defaults of a configuration
/// file (not valid on its own: `base_url`, `secret_key` and `app.scheme` are required); tests may
/// start from it and set what they need.
public struct TollgateConfig: Sendable, Equatable {
    /// `base_url`: the public URL of this service, absolute http(s), without trailing slash.
    public var baseURL: String
    /// `listen`: the address the HTTP server binds.
    public var listen: Listen
    /// `database`: where the SQLite database lives.
    public var database: Database
    /// `secret_key`: HMAC key for obfuscated ids and signed links (at least 32 characters).
    public var secretKey: String
    /// `secret_keys` (secret): instead of `secret_key`, the keys of a rotation, newest first (the
    /// first seals, signs and keys from now on; every one still opens and verifies).
    public var secretKeys: [String] = []
    /// The keys in use: `secret_keys`, or the one `secret_key` (empty when neither is set).
    public var secretKeyList: [String] { secretKeys.isEmpty ? (secretKey.isEmpty ? [] : [secretKey]) : secretKeys }
    /// `app`: the app's name, URL scheme, and store identities.
    public var app: App
    /// `api_keys`: keys apps (`public`) and partner backends (`server`) authenticate with.
    public var apiKeys: APIKeys
    /// `admin`: SHA-256 hashes of the admin bearer tokens.
    public var admin: Admin
    /// `plans`: checkout plans by name.
    public var plans: [String: Plan]
    /// `entitlements`: entitlement id → the product / price ids that grant it.
    public var entitlements: [String: [String]]
    /// `products`: product ids listed by `GET /api/v1/products`.
    public var products: [String]
    /// How long a non-renewing subscription (App Store) grants access, in days from its purchase,
    /// per product id: the store gives such purchases no expiry of their own.
    public var productsDurationDays: [String: Int]
    /// `stripe`: Stripe API and webhook settings.
    public var stripe: Stripe
    /// `apple`: App Store verification settings.
    public var apple: Apple
    /// `google`: Google Play verification settings.
    public var google: Google
    /// `redemption`: how codes are issued and redeemed.
    public var redemption: Redemption
    /// `mail`: how email is sent.
    public var mail: Mail
    /// `http`: HTTP server limits and trusted proxies.
    public var http: HTTP
    /// `events`: the app's backend endpoints that receive signed events.
    public var events: Events
    /// `retention`: how many days expired or finished rows are kept before they are deleted.
    public var retention: Retention
    /// `reconcile`: how often missed notifications are looked for.
    public var reconcile: Reconcile
    /// `link_out`: where the app may link out to web checkout, under which programme.
    public var linkOut: LinkOut
    /// `checkout`: what web checkout refuses.
    public var checkout = Checkout()
    /// `locales`: the default language and the operator's catalogs.
    public var locales: Locales
    /// `log`: logging.
    public var log: Log
    /// `paths`: where templates and static files are read from.
    public var paths: Paths
    /// True when no configuration file was given: the service runs as a local demo.
    public var isDemo: Bool
    /// `console`: the operators' console.
    public var console: Console
    /// `rate_limits`: the per-client budgets of the web edge.
    public var rateLimits = RateLimits()

    /// The defaults of a configuration file (see the type's documentation).
    public init() {
        baseURL = ""
        listen = Listen()
        database = Database()
        secretKey = ""
        app = App()
        apiKeys = APIKeys()
        admin = Admin()
        plans = [:]
        entitlements = [:]
        products = []
        productsDurationDays = [:]
        stripe = Stripe()
        apple = Apple()
        google = Google()
        redemption = Redemption()
        mail = Mail()
        http = HTTP()
        events = Events()
        retention = Retention()
        reconcile = Reconcile()
        console = Console()
        linkOut = LinkOut()
        locales = Locales()
        log = Log()
        paths = Paths()
        isDemo = false
    }

    /// The placeholder Stripe price id of the demo plan.
    public static let demoPriceID = "price_demo_placeholder"

    /// The defaults of demo mode (no configuration file). `secret_key` is filled in by the loader.
    static func demoDefaults() -> TollgateConfig {
        var config = TollgateConfig()
        config.isDemo = true
        config.baseURL = "http://localhost:8080"
        config.listen.host = "127.0.0.1"
        config.app.name = "Tollgate demo"
        config.app.scheme = "tollgate-demo"
        config.plans = ["demo": Plan(priceID: demoPriceID, mode: .subscription)]
        config.entitlements = ["premium": [demoPriceID]]
        config.mail.transport = .file
        config.mail.from = "Tollgate demo <no-reply@localhost>"
        return config
    }
}
