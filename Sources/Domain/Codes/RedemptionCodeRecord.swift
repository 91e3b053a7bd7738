import Foundation
import Storage

/// A redemption code as stored: never the code itself, only its hash, a sealed copy and a
/// short hint (last 4 characters) for operators.
public struct RedemptionCodeRecord: Sendable, Equatable {
    /// Where a code is in its life.
    public enum Status: String, Sendable {
        /// Issued, not redeemed yet (it may still be past `expiresAt`).
        case live
        /// Redeemed: it keeps working for the account that redeemed it.
        case redeemed
        /// A newer code was sent for the same purchase.
        case replaced
        /// Revoked by an operator.
        case revoked
    }

    public let id: String
    public let purchaseID: String
    public let status: Status
    public let hint: String
    public let expiresAt: Date
    public let redeemedAt: Date?
    public let redeemedAccountID: String?
    public let redeemedAppUserID: String?
    public let createdAt: Date
    let sealed: [UInt8]

    /// Whether the code is past its TTL at `now`.
    public func isExpired(at now: Date) -> Bool { expiresAt <= now }

    static let columns = """
        id, purchase_id, status, hint, expires_at, redeemed_at, redeemed_account_id, redeemed_app_user_id, created_at, code_sealed
        """

    init(row: Row) throws {
        id = try row.string("id")
        purchaseID = try row.string("purchase_id")
        let statusName = try row.string("status")
        guard let status = Status(rawValue: statusName) else {
            throw DomainError(.corrupt, "code \(id) has unknown status \(statusName)")
        }
        self.status = status
        hint = try row.string("hint")
        expiresAt = Timestamp.date(try row.int64("expires_at"))
        redeemedAt = Timestamp.date(try row.optionalInt64("redeemed_at"))
        redeemedAccountID = try row.optionalString("redeemed_account_id")
        redeemedAppUserID = try row.optionalString("redeemed_app_user_id")
        createdAt = Timestamp.date(try row.int64("created_at"))
        sealed = try row.blob("code_sealed")
    }
}
