import Foundation

/// What happens when a redeemed code, or a purchase held by one account, is redeemed by
/// another app user (config `redemption.on_other_user`).
public enum OtherUserPolicy: String, Sendable {
    /// The redeeming device joins the purchase's account (`account_switched: true`).
    case `switch`
    /// The purchase moves to the redeeming account; the old one loses the entitlement.
    case transfer
    /// `purchase_belongs_to_other_user`.
    case reject
}

/// The configured rules of redemption.
public struct RedemptionPolicy: Sendable {
    public var onOtherUser: OtherUserPolicy
    public var maxDevices: Int
    public var codeTTL: TimeInterval
    public var resendInterval: TimeInterval

    public init(onOtherUser: OtherUserPolicy = .switch, maxDevices: Int = 5, codeTTL: TimeInterval = 72 * 3600, resendInterval: TimeInterval = 600) {
        self.onOtherUser = onOtherUser
        self.maxDevices = maxDevices
        self.codeTTL = codeTTL
        self.resendInterval = resendInterval
    }
}
