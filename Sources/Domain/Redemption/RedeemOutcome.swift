import Crypto
import Foundation

/// The result of redeeming a code: API.md's `status` values.
public enum RedeemOutcome: Sendable {
    /// The purchase is linked and active (`success`), or linked but no longer active
    /// (`expired_subscription`: `redeemed.isEntitled` is false).
    case redeemed(Redeemed)
    /// Unknown, revoked or malformed (`invalid_code`).
    case invalidCode
    /// Past its TTL or replaced by a newer code (`expired_code`). When `resent` holds a code,
    /// the caller emails it in the same transaction.
    case expiredCode(ExpiredCode)
    /// `purchase_belongs_to_other_user` (policy `reject`).
    case belongsToOtherUser
    /// The app user has secrets bound and the call carried none of them: nothing was linked and
    /// the code stays redeemable (`secret_mismatch`).
    case secretMismatch(Purchase)

    /// A successful link. A class: the answer passes it through several layers (the outcome, the
    /// use case's answer, the route's JSON), and each copy of a struct this size retained and
    /// released its dozens of strings.
    public final class Redeemed: Sendable {
        public let code: RedemptionCode
        public let purchase: Purchase
        /// The account that now holds the purchase, whose session is returned when the caller
        /// proved it (else the answer names no account).
        public let account: Account
        public let accountSwitched: Bool
        /// Nil when the caller did not prove `account` (`session_required`).
        public let tokens: SessionRepository.Tokens?
        /// Devices signed out to stay within `max_devices`.
        public let evictedDevices: [String]
        public let isEntitled: Bool

        /// Whether the answer carries `session_required` instead of a session and the account.
        public var sessionRequired: Bool { tokens == nil }

        public init(
            code: RedemptionCode, purchase: Purchase, account: Account, accountSwitched: Bool, tokens: SessionRepository.Tokens?,
            evictedDevices: [String], isEntitled: Bool
        ) {
            self.code = code
            self.purchase = purchase
            self.account = account
            self.accountSwitched = accountSwitched
            self.tokens = tokens
            self.evictedDevices = evictedDevices
            self.isEntitled = isEntitled
        }
    }

    /// An expired code.
    public struct ExpiredCode: Sendable {
        /// The purchase's email (for the masked address in the answer), if known.
        public let email: String?
        /// A fresh code to email now, when the throttle allowed it.
        public let resent: CodeRepository.Issued?
        public let purchase: Purchase

        public init(email: String?, resent: CodeRepository.Issued?, purchase: Purchase) {
            self.email = email
            self.resent = resent
            self.purchase = purchase
        }
    }
}
