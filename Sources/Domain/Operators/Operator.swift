import Foundation
import Storage

/// A person who signs in to the console: an email, a role, and once enrolled a password hash
/// and a sealed TOTP secret.
public struct Operator: Sendable, Equatable {
    public let id: String
    public let email: String
    public let role: OperatorRole
    public let passwordHash: String?
    public let totpSealed: [UInt8]?
    public let totpLastStep: Int64?
    public let enrolledAt: Date?
    public let createdAt: Date

    /// Whether the invitation was taken up (a password and an authenticator are set).
    public var isEnrolled: Bool { enrolledAt != nil && passwordHash != nil && totpSealed != nil }

    static let columns = "id, email, role, password_hash, totp_sealed, totp_last_step, enrolled_at, created_at"

    init(row: Row) throws {
        id = try row.string("id")
        email = try row.string("email")
        guard let role = OperatorRole(rawValue: try row.string("role")) else {
            throw DomainError(.corrupt, "operator \(try row.string("id")) has an unknown role")
        }
        self.role = role
        passwordHash = try row.optionalString("password_hash")
        totpSealed = try row.optionalBlob("totp_sealed")
        totpLastStep = try row.optionalInt64("totp_last_step")
        enrolledAt = Timestamp.date(try row.optionalInt64("enrolled_at"))
        createdAt = Timestamp.date(try row.int64("created_at"))
    }
}
