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

    init(row: Row) throws {
        id = try row.string("id")
        obfuscatedID = try row.string("obfuscated_id")
        let stored = try row.optionalString("email")
        confirmedEmail = try row.bool("email_verified") ? stored : nil
        requestedEmail = try row.optionalString("requested_email")
        username = try row.optionalString("username")
        hasPassword = try row.optionalString("password_hash") != nil
        createdAt = Timestamp.date(try row.int64("created_at"))
    }
}
