import Foundation
import Storage

/// Everything the console's buyer page shows of one buyer, read in one transaction: the account
/// (or, for a buyer no account holds yet, the purchase made with their email), app users,
/// devices, purchases with each one's history, codes (never the code), events and link-out
/// reports. Each list is newest first and capped (`limit`); mail is read by the Mail module.
public struct BuyerRecords: Sendable {
    /// A device as the console lists it.
    public struct Device: Sendable, Equatable {
        public let deviceID: String
        public let appUserID: String?
        public let lastSeenAt: Date
        public let signedOutAt: Date?
    }

    /// An event and how its deliveries stand (type and statuses, never the payload).
    public struct Event: Sendable, Equatable {
        public let id: String
        public let type: String
        public let createdAt: Date
        /// `delivered`, `pending`, `sending` or `failed` per endpoint, comma-separated; empty without endpoints.
        public let deliveries: String
        /// The id of a failed delivery (what a retry takes), if any.
        public let failedDeliveryID: String?
    }

    /// A link-out report (kind, status, never the body).
    public struct Report: Sendable, Equatable {
        public let id: String
        public let purchaseID: String?
        public let kind: String
        public let status: String
        public let lastError: String?
        public let createdAt: Date
    }

    public let buyerID: String
    public let account: Account?
    /// The address mail to this buyer goes to (the account's, else the purchase's).
    public let email: String?
    public let appUserIDs: [String]
    public let devices: [Device]
    public let purchases: [Purchase]
    public let history: [String: [PurchaseHistory.Change]]
    public let codes: [RedemptionCodeRecord]
    public let events: [Event]
    public let reports: [Report]

    /// The records of `buyerID` (an account id, or a purchase id: its account's records, or the
    /// purchase's own while no account holds it); nil
    /// when there is no such buyer (or the account was deleted).
    public static func load(buyerID: String, limit: Int, on connection: Connection) throws -> BuyerRecords? {
        var account: Account?
        var purchases: [Purchase]
        if let found = try AccountRepository.find(id: buyerID, on: connection) {
            guard try !AccountErasure.isDeleted(accountID: found.id, on: connection) else { return nil }
            account = found
            purchases = try connection.query(
                "SELECT \(Purchase.columns) FROM purchases WHERE account_id = ? ORDER BY created_at DESC LIMIT ?", [found.id, limit]
            ).map(Purchase.init(row:))
        } else if let purchase = try PurchaseRepository.find(id: buyerID, on: connection), let holder = purchase.accountID, holder != buyerID {
            // A purchase an account holds: that account's page.
            return try load(buyerID: holder, limit: limit, on: connection)
        } else if let purchase = try PurchaseRepository.find(id: buyerID, on: connection), purchase.accountID == nil {
            purchases = [purchase]
            if let email = purchase.purchaserEmail {
                for row in try connection.query(
                    "SELECT \(Purchase.columns) FROM purchases WHERE purchaser_email = ? AND account_id IS NULL ORDER BY created_at DESC LIMIT ?",
                    [email, limit])
                {
                    let other = try Purchase(row: row)
                    if other.id != purchase.id { purchases.append(other) }
                }
            }
        } else {
            return nil
        }
        let accountID = account?.id
        var history: [String: [PurchaseHistory.Change]] = [:]
        var codes: [RedemptionCodeRecord] = []
        var reports: [Report] = []
        for purchase in purchases {
            history[purchase.id] = try PurchaseHistory.changes(purchaseID: purchase.id, limit: limit, on: connection)
            codes += try connection.query(
                "SELECT \(RedemptionCodeRecord.columns) FROM redemption_codes WHERE purchase_id = ? ORDER BY seq DESC LIMIT ?", [purchase.id, limit]
            ).map(RedemptionCodeRecord.init(row:))
            reports += try connection.query(
                "SELECT id, purchase_id, kind, status, last_error, created_at FROM link_out_reports WHERE purchase_id = ? ORDER BY created_at DESC LIMIT ?",
                [purchase.id, limit]
            ).map(Self.report)
        }
        var devices: [Device] = []
        var events: [Event] = []
        var appUserIDs: [String] = []
        if let accountID {
            appUserIDs = try AccountRepository.appUserIDs(accountID: accountID, on: connection)
            devices = try connection.query(
                "SELECT device_id, app_user_id, last_seen_at, signed_out_at FROM devices WHERE account_id = ? ORDER BY last_seen_at DESC LIMIT ?",
                [accountID, limit]
            ).map { row in
                Device(
                    deviceID: try row.string("device_id"), appUserID: try row.optionalString("app_user_id"),
                    lastSeenAt: Timestamp.date(try row.int64("last_seen_at")), signedOutAt: Timestamp.date(try row.optionalInt64("signed_out_at")))
            }
            for row in try connection.query(
                "SELECT id, type, created_at FROM events WHERE account_id = ? ORDER BY sequence DESC LIMIT ?", [accountID, limit])
            {
                let id = try row.string("id")
                let deliveries = try connection.query("SELECT id, status FROM event_deliveries WHERE event_id = ? ORDER BY endpoint_id", [id])
                let statuses = try deliveries.map { try $0.string("status") }
                let failed = try deliveries.first { try $0.string("status") == "failed" }.map { try $0.string("id") }
                events.append(
                    Event(
                        id: id, type: try row.string("type"), createdAt: Timestamp.date(try row.int64("created_at")),
                        deliveries: statuses.joined(separator: ", "), failedDeliveryID: failed))
            }
        }
        return BuyerRecords(
            buyerID: buyerID, account: account, email: account?.email ?? purchases.first?.purchaserEmail, appUserIDs: appUserIDs,
            devices: devices, purchases: purchases, history: history, codes: codes.sorted { $0.createdAt > $1.createdAt }, events: events,
            reports: reports.sorted { $0.createdAt > $1.createdAt })
    }

    static func report(_ row: Row) throws -> Report {
        Report(
            id: try row.string("id"), purchaseID: try row.optionalString("purchase_id"), kind: try row.string("kind"),
            status: try row.string("status"), lastError: try row.optionalString("last_error"), createdAt: Timestamp.date(try row.int64("created_at")))
    }
}
