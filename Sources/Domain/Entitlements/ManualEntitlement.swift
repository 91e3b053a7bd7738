import Foundation
import Storage

/// An entitlement an admin operator granted an account by hand (API.md "The operators'
/// console": "grants or ends a manual entitlement (with an end date)"). It holds from its grant
/// until `endsAt` — the end of the `until` day in UTC, that is 00:00:00 UTC of the day after —
/// or until an operator ends it, whichever comes first.
public struct ManualEntitlement: Sendable, Equatable {
    public let id: String
    public let accountID: String
    /// The entitlement's name in config (`premium`).
    public let entitlement: String
    /// The first instant it no longer holds.
    public let endsAt: Date
    /// Who granted it (operator email or admin key name) and why.
    public let grantedBy: String
    public let reason: String
    public let createdAt: Date
    /// When and by whom it was ended before `endsAt`; nil while not ended.
    public let endedAt: Date?
    public let endedBy: String?

    /// Whether it grants its entitlement at `now`.
    public func isActive(at now: Date) -> Bool { endedAt == nil && endsAt > now }
}

/// The `manual_entitlements` table: at most one live grant per account and entitlement (a new
/// grant ends the live one first), every grant kept with who ended it.
public enum ManualEntitlementRepository {
    static let columns = "id, account_id, entitlement, ends_at, granted_by, reason, created_at, ended_at, ended_by"

    /// Records a grant of `entitlement` to `accountID` until `endsAt`, ending the live one of the
    /// same entitlement (returned as `replaced`).
    public static func grant(
        accountID: String, entitlement: String, endsAt: Date, by actor: String, reason: String, on connection: Connection, now: Date
    ) throws -> (granted: ManualEntitlement, replaced: ManualEntitlement?) {
        let replaced = try live(accountID: accountID, entitlement: entitlement, on: connection, now: now)
        if let replaced { try end(id: replaced.id, by: actor, on: connection, now: now) }
        let granted = ManualEntitlement(
            id: try EntityID.make("men"), accountID: accountID, entitlement: entitlement, endsAt: endsAt, grantedBy: actor, reason: reason,
            createdAt: now, endedAt: nil, endedBy: nil)
        try connection.execute(
            "INSERT INTO manual_entitlements (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL)",
            [
                granted.id, accountID, entitlement, Timestamp.milliseconds(endsAt), actor, reason, Timestamp.milliseconds(now)
            ])
        return (granted, replaced)
    }

    /// Ends one grant now.
    public static func end(id: String, by actor: String, on connection: Connection, now: Date) throws {
        try connection.execute(
            "UPDATE manual_entitlements SET ended_at = ?, ended_by = ? WHERE id = ? AND ended_at IS NULL", [Timestamp.milliseconds(now), actor, id])
    }

    /// The grant of `entitlement` on `accountID` that holds at `now`, if any.
    public static func live(accountID: String, entitlement: String, on connection: Connection, now: Date) throws -> ManualEntitlement? {
        try connection.queryOne(
            """
            SELECT \(columns) FROM manual_entitlements
            WHERE account_id = ? AND entitlement = ? AND ended_at IS NULL AND ends_at > ? ORDER BY created_at DESC LIMIT 1
            """, [accountID, entitlement, Timestamp.milliseconds(now)]
        ).map(decode)
    }

    /// The grants that hold at `now` on any of `accountIDs`.
    public static func active(accountIDs: [String], on connection: Connection, now: Date) throws -> [ManualEntitlement] {
        guard !accountIDs.isEmpty else { return [] }
        let marks = Array(repeating: "?", count: accountIDs.count).joined(separator: ", ")
        return try connection.query(
            """
            SELECT \(columns) FROM manual_entitlements
            WHERE account_id IN (\(marks)) AND ended_at IS NULL AND ends_at > ? ORDER BY entitlement, created_at
            """, accountIDs.map { SQLValue.text($0) } + [.integer(Timestamp.milliseconds(now))]
        ).map(decode)
    }

    /// The grants that hold at `now` on `accountID`.
    public static func active(accountID: String?, on connection: Connection, now: Date) throws -> [ManualEntitlement] {
        guard let accountID else { return [] }
        return try active(accountIDs: [accountID], on: connection, now: now)
    }

    /// Every grant of `accountID`, newest first (at most `limit`).
    public static func all(accountID: String, limit: Int, on connection: Connection) throws -> [ManualEntitlement] {
        try connection.query(
            "SELECT \(columns) FROM manual_entitlements WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT ?", [accountID, limit]
        ).map(decode)
    }

    /// Removes the account's grants (its deletion: they name it and carry operators' reasons).
    public static func delete(accountID: String, on connection: Connection) throws {
        try connection.execute("DELETE FROM manual_entitlements WHERE account_id = ?", [accountID])
    }

    static func decode(_ row: Row) throws -> ManualEntitlement {
        ManualEntitlement(
            id: try row.string("id"), accountID: try row.string("account_id"), entitlement: try row.string("entitlement"),
            endsAt: Timestamp.date(try row.int64("ends_at")), grantedBy: try row.string("granted_by"), reason: try row.string("reason"),
            createdAt: Timestamp.date(try row.int64("created_at")), endedAt: Timestamp.date(try row.optionalInt64("ended_at")),
            endedBy: row["ended_by"] == .null ? nil : try row.string("ended_by"))
    }
}
