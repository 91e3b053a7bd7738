import Foundation
import Storage

/// Everything the database holds about one account outside the mail outbox, read for its data
/// export (API.md "Account deletion and data export"): the account, its app users, devices,
/// purchases (with attribution and purchaser email), their codes (never the codes themselves)
/// and the audit entries about the account or its purchases.
public struct AccountRecords: Sendable {
    /// An app user (the SDK's user id) that points at the account.
    public struct AppUser: Sendable, Equatable {
        public let appUserID: String
        public let createdAt: Date
        public let lastSeenAt: Date
    }

    /// A device seen for the account.
    public struct Device: Sendable, Equatable {
        public let deviceID: String
        public let appUserID: String?
        public let createdAt: Date
        public let lastSeenAt: Date
        public let signedOutAt: Date?
    }

    public let account: Account
    public let appUsers: [AppUser]
    public let devices: [Device]
    public let purchases: [Purchase]
    public let codes: [RedemptionCodeRecord]
    public let audit: [AuditLog.Entry]

    /// The addresses the account is known by (its own, its purchases'), for the mail records.
    public var emails: Set<String> {
        Set(([account.email] + purchases.map(\.purchaserEmail)).compactMap { $0?.lowercased() })
    }

    /// Reads the records of `accountID`, or nil for an unknown or deleted account.
    /// - Throws: `StorageError`.
    public static func read(accountID: String, on connection: Connection) throws -> AccountRecords? {
        guard let account = try AccountRepository.find(id: accountID, on: connection),
            !(try AccountErasure.isDeleted(accountID: accountID, on: connection))
        else { return nil }
        let appUsers = try connection.query(
            "SELECT app_user_id, created_at, last_seen_at FROM app_users WHERE account_id = ? ORDER BY created_at", [accountID]
        ).map { row in
            AppUser(
                appUserID: try row.string("app_user_id"), createdAt: Timestamp.date(try row.int64("created_at")),
                lastSeenAt: Timestamp.date(try row.int64("last_seen_at")))
        }
        let devices = try connection.query(
            "SELECT device_id, app_user_id, created_at, last_seen_at, signed_out_at FROM devices WHERE account_id = ? ORDER BY created_at",
            [accountID]
        ).map { row in
            Device(
                deviceID: try row.string("device_id"), appUserID: try row.optionalString("app_user_id"),
                createdAt: Timestamp.date(try row.int64("created_at")), lastSeenAt: Timestamp.date(try row.int64("last_seen_at")),
                signedOutAt: try row.optionalInt64("signed_out_at").map(Timestamp.date))
        }
        let purchases = try PurchaseRepository.forAccount(accountID, on: connection)
        var codes: [RedemptionCodeRecord] = []
        for purchase in purchases {
            codes += try connection.query(
                "SELECT \(RedemptionCodeRecord.columns) FROM redemption_codes WHERE purchase_id = ? ORDER BY seq", [purchase.id]
            ).map(RedemptionCodeRecord.init(row:))
        }
        let targets = [accountID] + purchases.map(\.id)
        let marks = Array(repeating: "?", count: targets.count).joined(separator: ", ")
        let audit = try connection.query(
            "SELECT \(AuditLog.columns) FROM audit_log WHERE target IN (\(marks)) ORDER BY created_at, id",
            targets.map { $0 as any SQLBindable }
        ).map(AuditLog.Entry.init(row:))
        return AccountRecords(account: account, appUsers: appUsers, devices: devices, purchases: purchases, codes: codes, audit: audit)
    }
}
