import Foundation
import Storage

/// A Tollgate account: anonymous until it has an email. Purchases, app users and devices
/// belong to it.
public struct Account: Sendable, Equatable {
    public let id: String
    /// HMAC of the id under the configured secret, as a UUID (Apple `appAccountToken`, Play
    /// `obfuscatedExternalAccountId`): names the owner without revealing the id.
    public let obfuscatedID: String
    public var email: String?
    public var emailVerified: Bool
    public var username: String?
    public var hasPassword: Bool
    public let createdAt: Date

    static let columns = "id, obfuscated_id, email, email_verified, username, password_hash, created_at"

    init(row: Row) throws {
        id = try row.string("id")
        obfuscatedID = try row.string("obfuscated_id")
        email = try row.optionalString("email")
        emailVerified = try row.bool("email_verified")
        username = try row.optionalString("username")
        hasPassword = try row.optionalString("password_hash") != nil
        createdAt = Timestamp.date(try row.int64("created_at"))
    }
}
