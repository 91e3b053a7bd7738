import Domain
import Foundation
import Storage

/// Whether a buyer already holds, from any store, what a web plan grants (API.md "Already
/// entitled", `checkout.on_already_entitled`): `/checkout/start` refuses such a checkout and the
/// eligibility answer says so, naming where the subscription is managed. Given an app user id,
/// it reads entitlements and stores only: never an account id or an email (issue 40).
public struct AlreadyEntitledCheck: Sendable {
    /// What the buyer is told: the entitlement, its store and the store's own management link.
    public struct Refusal: Sendable, Equatable {
        public let entitlement: String
        /// `stripe`, `app_store`, `play_store`, or `manual` (an operator's grant, seen on `/account`).
        public let store: String
        public let manageURL: String
    }

    /// Apple's page for managing subscriptions.
    public static let appStoreManageURL = "https://apps.apple.com/account/subscriptions"

    let database: Database
    let catalog: EntitlementCatalog
    let links: Links
    let androidPackage: String?
    /// Whether `/checkout/start` refuses (`refuse`, the default) or lets the buyer pay again (`allow`).
    public let refuses: Bool

    public init(database: Database, catalog: EntitlementCatalog, links: Links, androidPackage: String?, refuses: Bool = true) {
        self.database = database
        self.catalog = catalog
        self.links = links
        self.androidPackage = androidPackage
        self.refuses = refuses
    }

    /// What the app user's and the signed-in account's purchases already grant of everything
    /// `priceIDs` grant; nil when something would be new (or nobody is named).
    /// - Throws: `StorageError`.
    public func holding(appUserID: String?, accountID: String?, priceIDs: [String], now: Date) async throws -> Refusal? {
        let granted = Array(Set(priceIDs.flatMap { catalog.entitlementIDs(granting: $0) }))
        guard !granted.isEmpty, appUserID != nil || accountID != nil else { return nil }
        let (purchases, manual) = try await database.read { connection -> ([Purchase], [ManualEntitlement]) in
            var accounts: [String] = []
            if let appUserID, let account = try AccountRepository.find(appUserID: appUserID, on: connection) { accounts.append(account.id) }
            if let accountID, !accounts.contains(accountID) { accounts.append(accountID) }
            return (
                try accounts.flatMap { try PurchaseRepository.forAccount($0, on: connection) },
                try ManualEntitlementRepository.active(accountIDs: accounts, on: connection, now: now)
            )
        }
        return AlreadyEntitled.find(granted: granted, purchases: purchases, manual: manual, catalog: catalog, now: now).map(refusal)
    }

    /// Where `held` is managed: the App Store's subscriptions page, Play's for its product, or
    /// this service's `/manage` (which signs the buyer in first) for a web purchase, `/account`
    /// (which shows the grant and its end) for an operator's manual grant.
    func refusal(_ held: AlreadyEntitled) -> Refusal {
        let url: String
        switch held.platform {
        case .appStore:
            url = Self.appStoreManageURL
        case .playStore:
            let query = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
            let sku = held.productID.addingPercentEncoding(withAllowedCharacters: query) ?? held.productID
            let package = (androidPackage ?? "").addingPercentEncoding(withAllowedCharacters: query) ?? ""
            url = "https://play.google.com/store/account/subscriptions?sku=\(sku)&package=\(package)"
        case .stripe:
            url = links.url("/manage")
        case nil:
            url = links.url("/account")
        }
        return Refusal(entitlement: held.entitlement, store: held.platform?.rawValue ?? "manual", manageURL: url)
    }
}
