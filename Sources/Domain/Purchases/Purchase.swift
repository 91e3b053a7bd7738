import Foundation
import Storage

/// A purchase as stored: the latest state a store told us, who holds it, and its context.
public struct Purchase: Sendable, Equatable {
    public let id: String
    public var platform: Platform
    public var externalID: String
    public var productID: String
    public var status: PurchaseStatus
    public var expiresAt: Date?
    public var environment: String?
    public var observedAt: Date
    /// The account that holds the purchase, once linked.
    public var accountID: String?
    public var purchaserEmail: String?
    public var customerID: String?
    public var ownerHint: String?
    /// The app user who started the checkout (Stripe `client_reference_id`).
    public var appUserID: String?
    /// Attribution context as JSON text (`ply_context`, `utm_*`, `campaign_*`).
    public var attribution: String?
    public var createdAt: Date
    public var updatedAt: Date
    /// Whether it renews at the end of the period; nil when the store has not said.
    public var willRenew: Bool?
    /// The product it renews into when that differs (a pending downgrade or crossgrade).
    public var renewsToProductID: String?
    /// The store offer it was bought with (`PurchaseSnapshot.offerType`).
    public var offerType: String?

    /// Whether the purchase grants access at `now`.
    public func isEntitled(at now: Date) -> Bool {
        guard status.grantsAccess else { return false }
        guard let expiresAt else { return true }
        return expiresAt > now
    }

    static let columns = """
        id, platform, external_id, product_id, status, expires_at, environment, observed_at, account_id,
        purchaser_email, customer_id, owner_hint, app_user_id, attribution, created_at, updated_at,
        will_renew, renews_to_product_id, offer_type
        """

    /// `columns` taken from the table aliased `alias` in a join, each under its own name.
    static func columns(qualifiedBy alias: String) -> String {
        columns.split(separator: ",").map { column in
            let name = column.trimmingCharacters(in: .whitespacesAndNewlines)
            return "\(alias).\(name) AS \(name)"
        }.joined(separator: ", ")
    }

    init(row: Row) throws {
        id = try row.string("id")
        let platformName = try row.string("platform")
        guard let platform = Platform(rawValue: platformName) else {
            throw DomainError(.corrupt, "purchase \(id) has unknown platform \(platformName)")
        }
        self.platform = platform
        externalID = try row.string("external_id")
        productID = try row.string("product_id")
        let statusName = try row.string("status")
        guard let status = PurchaseStatus(rawValue: statusName) else {
            throw DomainError(.corrupt, "purchase \(id) has unknown status \(statusName)")
        }
        self.status = status
        expiresAt = Timestamp.date(try row.optionalInt64("expires_at"))
        environment = try row.optionalString("environment")
        observedAt = Timestamp.date(try row.int64("observed_at"))
        accountID = try row.optionalString("account_id")
        purchaserEmail = try row.optionalString("purchaser_email")
        customerID = try row.optionalString("customer_id")
        ownerHint = try row.optionalString("owner_hint")
        appUserID = try row.optionalString("app_user_id")
        attribution = try row.optionalString("attribution")
        createdAt = Timestamp.date(try row.int64("created_at"))
        updatedAt = Timestamp.date(try row.int64("updated_at"))
        willRenew = try row.optionalInt64("will_renew").map { $0 != 0 }
        renewsToProductID = try row.optionalString("renews_to_product_id")
        offerType = try row.optionalString("offer_type")
    }
}
