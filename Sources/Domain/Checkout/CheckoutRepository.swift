import Foundation
import Storage

/// The checkouts this service started, keyed by Stripe session id (and the app's
/// `checkout_context_id`, which the app polls with).
public enum CheckoutRepository {
    /// What the app sent when it started checkout.
    public struct Start: Sendable {
        public var sessionID: String
        public var checkoutContextID: String?
        public var appUserID: String?
        public var plan: String?
        public var priceID: String
        public var mode: String
        public var email: String?
        public var redirectURL: String?
        public var context: String
        /// The buyer's language (`BuyerLanguage`), kept for the purchase's pages and mails.
        public var locale: String?
        /// The hash of the install secret the app sent (bound when the checkout is paid and
        /// creates its app user; the secret itself is dropped at the edge).
        public var appUserSecretHash: String?

        public init(
            sessionID: String, checkoutContextID: String?, appUserID: String?, plan: String?, priceID: String, mode: String,
            email: String?, redirectURL: String?, context: String, locale: String? = nil, appUserSecretHash: String? = nil
        ) {
            self.appUserSecretHash = appUserSecretHash
            self.locale = locale
            self.sessionID = sessionID
            self.checkoutContextID = checkoutContextID
            self.appUserID = appUserID
            self.plan = plan
            self.priceID = priceID
            self.mode = mode
            self.email = email
            self.redirectURL = redirectURL
            self.context = context
        }
    }

    /// Records a started checkout (idempotent on the session id).
    /// - Throws: `DomainError(.conflict)` when the `checkout_context_id` belongs to another checkout.
    public static func recordStart(_ start: Start, on connection: Connection, now: Date) throws {
        if let contextID = start.checkoutContextID, let other = try find(contextID: contextID, on: connection),
            other.sessionID != start.sessionID
        {
            throw DomainError(.conflict, "checkout_context_id \(contextID) was already used for another checkout")
        }
        let nowMS = Timestamp.milliseconds(now)
        try connection.execute(
            """
            INSERT INTO checkouts (session_id, checkout_context_id, app_user_id, plan, price_id, mode, email, redirect_url, context,
                locale, app_user_secret_hash, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?)
            ON CONFLICT (session_id) DO NOTHING
            """,
            [
                start.sessionID, start.checkoutContextID, start.appUserID, start.plan, start.priceID, start.mode,
                start.email?.lowercased(), start.redirectURL, start.context, start.locale, start.appUserSecretHash, nowMS, nowMS
            ])
    }

    public static func find(sessionID: String, on connection: Connection) throws -> CheckoutRecord? {
        try connection.queryOne("SELECT \(CheckoutRecord.columns) FROM checkouts WHERE session_id = ?", [sessionID])
            .map(CheckoutRecord.init(row:))
    }

    public static func find(contextID: String, on connection: Connection) throws -> CheckoutRecord? {
        try connection.queryOne("SELECT \(CheckoutRecord.columns) FROM checkouts WHERE checkout_context_id = ?", [contextID])
            .map(CheckoutRecord.init(row:))
    }

    /// Marks the checkout complete with its purchase (idempotent), and gives the purchase the
    /// checkout's language when it has none yet (the first checkout of a purchase decides).
    public static func complete(sessionID: String, purchaseID: String, on connection: Connection, now: Date) throws {
        try connection.execute(
            "UPDATE checkouts SET status = 'complete', purchase_id = ?, updated_at = ? WHERE session_id = ?",
            [purchaseID, Timestamp.milliseconds(now), sessionID])
        try connection.execute(
            """
            UPDATE purchases SET locale = (SELECT locale FROM checkouts WHERE session_id = ?)
            WHERE id = ? AND locale IS NULL
            """,
            [sessionID, purchaseID])
    }

    /// Marks an open checkout expired or failed.
    public static func close(sessionID: String, status: String, on connection: Connection, now: Date) throws {
        try connection.execute(
            "UPDATE checkouts SET status = ?, updated_at = ? WHERE session_id = ? AND status = 'open'",
            [status, Timestamp.milliseconds(now), sessionID])
    }
}
