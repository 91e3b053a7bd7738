import Foundation
import Storage

/// A Stripe Checkout Session this service started, with the context the app gave.
public struct CheckoutRecord: Sendable, Equatable {
    public let sessionID: String
    public let checkoutContextID: String?
    public let appUserID: String?
    public let plan: String?
    public let priceID: String
    public let mode: String
    public let email: String?
    public let redirectURL: String?
    /// JSON object text: decoded `ply_context`, `utm_*`, `campaign_*`.
    public let context: String
    public private(set) var purchaseID: String?
    /// `open`, `complete`, `expired`.
    public private(set) var status: String
    /// The buyer's language chosen at the start (nil for checkouts from before it was kept).
    public let locale: String?
    /// The hash of the install secret the checkout was started with, if any.
    public let appUserSecretHash: String?
    public let createdAt: Date

    /// This checkout as `CheckoutRepository.complete` leaves it (no second read of its row).
    public func completed(purchaseID: String) -> CheckoutRecord {
        var completed = self
        completed.status = "complete"
        completed.purchaseID = purchaseID
        return completed
    }

    static let columns = """
        session_id, checkout_context_id, app_user_id, plan, price_id, mode, email, redirect_url, context, purchase_id, status, locale, app_user_secret_hash, created_at
        """

    init(row: Row) throws {
        sessionID = try row.string("session_id")
        checkoutContextID = try row.optionalString("checkout_context_id")
        appUserID = try row.optionalString("app_user_id")
        plan = try row.optionalString("plan")
        priceID = try row.string("price_id")
        mode = try row.string("mode")
        email = try row.optionalString("email")
        redirectURL = try row.optionalString("redirect_url")
        context = try row.string("context")
        purchaseID = try row.optionalString("purchase_id")
        status = try row.string("status")
        locale = try row.optionalString("locale")
        appUserSecretHash = try row.optionalString("app_user_secret_hash")
        createdAt = Timestamp.date(try row.int64("created_at"))
    }
}
