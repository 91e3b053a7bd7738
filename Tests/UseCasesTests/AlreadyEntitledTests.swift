import Domain
import Foundation
import Storage
import Testing

@testable import UseCases

/// "Already entitled" without HTTP: the pure rule over a buyer's purchases, where each store is
/// managed, and `/checkout/start`'s use case refusing (or, under `allow`, letting through) a
/// plan the app user already holds.
@Suite("Already entitled")
struct AlreadyEntitledTests {
    static let catalog = EntitlementCatalog([
        "premium": ["price_monthly", "com.example.monthly", "monthly_sub"], "pro": ["price_pro"]
    ])

    /// A purchase as a store snapshot leaves it.
    static func purchase(
        _ bench: UseCaseBench, _ platform: Platform, _ product: String, status: PurchaseStatus = .active, expires: TimeInterval? = 86_400
    ) throws -> Purchase {
        let now = bench.now
        let snapshot = PurchaseSnapshot(
            platform: platform, externalID: "x-\(product)-\(status.rawValue)-\(expires ?? 0)", productID: product, status: status,
            expiresAt: expires.map { now.addingTimeInterval($0) }, observedAt: now)
        return try bench.database.writeSync { try PurchaseRepository.apply(snapshot, on: $0, now: now).purchase }
    }

    @Test("Refused only when every entitlement the plan grants is held actively; a plan that grants more passes")
    func rule() throws {
        let bench = try UseCaseBench()
        let now = bench.now
        let apple = [try Self.purchase(bench, .appStore, "com.example.monthly")]
        #expect(
            AlreadyEntitled.find(granted: ["premium"], purchases: apple, catalog: Self.catalog, now: now)
                == AlreadyEntitled(entitlement: "premium", platform: .appStore, productID: "com.example.monthly"))
        #expect(AlreadyEntitled.find(granted: ["premium", "pro"], purchases: apple, catalog: Self.catalog, now: now) == nil)
        #expect(AlreadyEntitled.find(granted: [], purchases: apple, catalog: Self.catalog, now: now) == nil)
        let lapsed = [try Self.purchase(bench, .appStore, "com.example.monthly", expires: -1)]
        #expect(AlreadyEntitled.find(granted: ["premium"], purchases: lapsed, catalog: Self.catalog, now: now) == nil)
        let refunded = [try Self.purchase(bench, .playStore, "monthly_sub", status: .refunded)]
        #expect(AlreadyEntitled.find(granted: ["premium"], purchases: refunded, catalog: Self.catalog, now: now) == nil)
    }

    @Test("Where it is managed: Apple's page, Play's for its product and package, this service's /manage for the web")
    func manageLinks() throws {
        let bench = try UseCaseBench()
        let check = AlreadyEntitledCheck(database: bench.database, catalog: Self.catalog, links: bench.links, androidPackage: "com.example.app")
        #expect(
            check.refusal(AlreadyEntitled(entitlement: "premium", platform: .appStore, productID: "com.example.monthly")).manageURL
                == "https://apps.apple.com/account/subscriptions")
        #expect(
            check.refusal(AlreadyEntitled(entitlement: "premium", platform: .playStore, productID: "monthly_sub")).manageURL
                == "https://play.google.com/store/account/subscriptions?sku=monthly_sub&package=com.example.app")
        let web = check.refusal(AlreadyEntitled(entitlement: "premium", platform: .stripe, productID: "price_monthly"))
        #expect(web.manageURL == "https://pay.example.test/manage" && web.store == "stripe")
    }

    static func start(_ bench: UseCaseBench, refuses: Bool) throws -> StartCheckout {
        StartCheckout(
            database: bench.database, stripe: nil, links: bench.links, plans: CheckoutRulesTests.plans, redirects: CheckoutRedirects(),
            allowPromotionCodes: false,
            linkOut: LinkOutCheckout(policy: LinkOutPolicy(rules: []), app: .init(bundleID: nil, appAppleID: nil)),
            tokenVault: try LinkOutTokenVault(secrets: bench.secrets), logger: .disabled,
            alreadyEntitled: AlreadyEntitledCheck(
                database: bench.database, catalog: Self.catalog, links: bench.links, androidPackage: nil, refuses: refuses))
    }

    static func order(appUserID: String?, accountID: String? = nil) -> StartCheckout.Order {
        var order = StartCheckout.Order(
            planNamings: [CheckoutRulesTests.naming("plan", "monthly")], appUserID: appUserID, checkoutContextID: nil, email: nil, redirectURL: nil)
        order.accountID = accountID
        return order
    }

    @Test(
        "/checkout/start's use case: refused for an app user or signed-in account holding it from the App Store; others and `allow` go on to Stripe")
    func startRefuses() async throws {
        let bench = try UseCaseBench()
        let now = bench.now
        let accountID = try bench.heldPurchase(
            appUserID: "user-apple", platform: .appStore, externalID: "2000000001", productID: "com.example.monthly")
        let refusing = try Self.start(bench, refuses: true)
        let expected = AlreadyEntitledCheck.Refusal(entitlement: "premium", store: "app_store", manageURL: AlreadyEntitledCheck.appStoreManageURL)
        #expect(try await refusing.begin(Self.order(appUserID: "user-apple"), now: now) == .alreadyEntitled(expected))
        #expect(try await refusing.begin(Self.order(appUserID: nil, accountID: accountID), now: now) == .alreadyEntitled(expected))
        await #expect(throws: UseCaseError.notConfigured("Checkout is not available on this server yet.")) {
            _ = try await refusing.begin(Self.order(appUserID: "someone-else"), now: now)
        }
        await #expect(throws: UseCaseError.notConfigured("Checkout is not available on this server yet.")) {
            _ = try await Self.start(bench, refuses: false).begin(Self.order(appUserID: "user-apple"), now: now)
        }
        // The eligibility answer for the app: entitlements and stores only.
        let eligibility = CheckoutEligibility(
            policy: LinkOutPolicy(rules: []),
            holdings: AlreadyEntitledCheck(database: bench.database, catalog: Self.catalog, links: bench.links, androidPackage: nil),
            planPrices: ["price_monthly"])
        #expect(try await eligibility.alreadyEntitled(appUserID: "user-apple", now: now) == expected)
        #expect(try await eligibility.alreadyEntitled(appUserID: "someone-else", now: now) == nil)
    }
}
