import UseCases

/// What the routes need of the configuration, and nothing more: the composition root (App)
/// builds it from `TollgateConfig`, so the web layer never sees the whole configuration.
public struct WebSettings: Sendable {
    /// The demo's home page section: the plan `a#demo-buy` starts and where mail lands.
    public struct DemoHome: Sendable, Equatable {
        public var plan: String
        /// The mail directory's absolute path.
        public var mailDirectory: String

        public init(plan: String, mailDirectory: String) {
            self.plan = plan
            self.mailDirectory = mailDirectory
        }
    }

    /// `base_url`.
    public var baseURL: String
    /// Whether `base_url` is https: then every answer carries `Strict-Transport-Security`.
    public var isHTTPS: Bool { baseURL.lowercased().hasPrefix("https://") }
    /// `app.*`.
    public var app: AppIdentity
    /// Who the client is behind `http.trusted_proxies`.
    public var clientAddress: ClientAddressResolver
    /// `api_keys.public_keys`: the app's `X-Api-Key`s.
    public var publicAPIKeys: [String]
    /// `api_keys.server_keys`: partners' `X-API-KEY`s for `/receipts`.
    public var serverKeys: [String]
    /// `admin.tokens_sha256`.
    public var adminTokenHashes: [String]
    /// `products`: the ids `GET /api/v1/products` and GoNative list.
    public var products: [String]
    /// `entitlements`: entitlement id → the product and price ids that grant it.
    public var entitlements: [String: [String]]
    /// Product and plan names as pages show them.
    public var productNames: ProductNames
    /// `reconcile.interval_seconds`.
    public var reconcileIntervalSeconds: Int
    /// `rate_limits`: the per-client budgets routes name by bucket.
    public var rateBudgets: RateBudgets
    /// Set in demo mode only.
    public var demoHome: DemoHome?
    /// Admin token hash (lower-case hex) → the name the audit log gives its user (`admin.tokens`;
    /// `admin.tokens_sha256` as "admin token 1", ...). Hashes without a name are audited as `admin:<prefix>`.
    public var adminTokenNames: [String: String] = [:]

    public init(
        baseURL: String, app: AppIdentity, clientAddress: ClientAddressResolver, publicAPIKeys: [String], serverKeys: [String],
        adminTokenHashes: [String], products: [String], entitlements: [String: [String]], productNames: ProductNames,
        reconcileIntervalSeconds: Int, rateBudgets: RateBudgets, demoHome: DemoHome? = nil
    ) {
        self.rateBudgets = rateBudgets
        self.baseURL = baseURL
        self.app = app
        self.clientAddress = clientAddress
        self.publicAPIKeys = publicAPIKeys
        self.serverKeys = serverKeys
        self.adminTokenHashes = adminTokenHashes
        self.products = products
        self.entitlements = entitlements
        self.productNames = productNames
        self.reconcileIntervalSeconds = reconcileIntervalSeconds
        self.demoHome = demoHome
    }
}
