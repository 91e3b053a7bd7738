import Configuration
import Foundation
import UseCases
import Web

extension WebSettings {
    /// What the routes need of `config`.
    public init(_ config: TollgateConfig) {
        let app = AppIdentity(
            name: config.app.name, scheme: config.app.scheme,
            ios: AppIdentity.IOS(bundleID: config.app.ios.bundleID, teamID: config.app.ios.teamID, appStoreURL: config.app.ios.appStoreURL),
            android: AppIdentity.Android(
                packageName: config.app.android.packageName, sha256CertFingerprints: config.app.android.sha256CertFingerprints,
                playStoreURL: config.app.android.playStoreURL))
        self.init(
            baseURL: config.baseURL, app: app, clientAddress: ClientAddressResolver(trustedProxies: config.http.trustedProxyNetworks),
            publicAPIKeys: config.apiKeys.publicKeys, serverKeys: config.apiKeys.serverKeys, adminTokenHashes: config.admin.namedTokens.map(\.sha256),
            products: config.products, entitlements: config.entitlements,
            productNames: ProductNames(entitlements: config.entitlements, planPrices: config.plans.mapValues(\.priceID)),
            reconcileIntervalSeconds: config.reconcile.intervalSeconds,
            rateBudgets: RateBudgets(config.rateLimits.budgets.mapValues { (limit: $0.limit, windowSeconds: $0.windowSeconds) }),
            demoHome: config.stripe.simulator ? Self.demoHome(config) : nil)
        adminTokenNames = Dictionary(config.admin.namedTokens.map { ($0.sha256, $0.name) }, uniquingKeysWith: { first, _ in first })
    }

    /// The home page's demo section: the plan `a#demo-buy` starts (`demo`, else the first by
    /// name) and where mail lands; nil without plans.
    static func demoHome(_ config: TollgateConfig) -> DemoHome? {
        guard let plan = config.plans["demo"] != nil ? "demo" : config.plans.keys.sorted().first else { return nil }
        return DemoHome(plan: plan, mailDirectory: URL(fileURLWithPath: config.mail.fileDir).standardizedFileURL.path)
    }
}
