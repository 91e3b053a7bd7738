import Foundation
import Storage

/// A Tollgate account: anonymous until it has an email. Purchases, app users and devices
/// belong to it. Its address is the one it confirmed; an address asked for but not yet
/// confirmed is a request (`requestedEmail`) that makes the account reachable by nothing.
public struct Account: Sendable, Equatable {
    public let id: String
    /// HMAC of the id under the configured secret, as a UUID (Apple `appAccountToken`, Play
    /// `obfuscatedExternalAccountId`): names the owner without revealing the id.
    public let obfuscatedID: String
    /// The address the account confirmed, if any.
    public var confirmedEmail: String?
    /// The address asked for and not yet confirmed, if any.
    public var requestedEmail: String?
    public var username: String?
    public var hasPassword: Bool
    public let createdAt: Date

    /// What the account shows (API.md `account.email`): the confirmed address, else the requested one.
    public var email: String? { confirmedEmail ?? requestedEmail }
    /// Whether `email` is confirmed.
    public var emailVerified: Bool { confirmedEmail != nil }

    static let columns = "id, obfuscated_id, email, email_verified, requested_email, username, password_hash, created_at"

    /// The column names `init(row:names:)` reads: the table's own, or a join's, each under a prefix.
    struct ColumnNames: Sendable {
        let id, obfuscatedID, email, emailVerified, requestedEmail, username, passwordHash, createdAt: String
        /// The names the select list gives them.
        let selectList: String

        /// `prefix` + each column's name, selected from the table aliased `alias`.
        init(alias: String, prefix: String) {
            let names = Account.columns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            (id, obfuscatedID, email, emailVerified) = (prefix + names[0], prefix + names[1], prefix + names[2], prefix + names[3])
            (requestedEmail, username, passwordHash, createdAt) = (prefix + names[4], prefix + names[5], prefix + names[6], prefix + names[7])
            selectList = names.map { "\(alias).\($0) AS \(prefix)\($0)" }.joined(separator: ", ")
        }

        /// The table's own names (`SELECT \(Account.columns) FROM accounts`).
        static let table = ColumnNames(alias: "accounts", prefix: "")
    }

    init(row: Row) throws {
        try self.init(row: row, names: .table)
    }

    init(row: Row, names: ColumnNames) throws {
        id = try row.string(names.id)
        obfuscatedID = try row.string(names.obfuscatedID)
        let stored = try row.optionalString(names.email)
        confirmedEmail = try row.bool(names.emailVerified) ? stored : nil
        requestedEmail = try row.optionalString(names.requestedEmail)
        username = try row.optionalString(names.username)
        hasPassword = try row.optionalString(names.passwordHash) != nil
        createdAt = Timestamp.date(try row.int64(names.createdAt))
    }
}
