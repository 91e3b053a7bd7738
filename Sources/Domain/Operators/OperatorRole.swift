/// What an operator may do in the console (API.md "The operators' console"): `viewer` reads;
/// `support` also acts for a buyer (codes, confirmation mail, devices, moves, sign-out);
/// `admin` also changes entitlements, exports or deletes accounts, retries deliveries and
/// manages operators. An admin API token acts as `admin`.
public enum OperatorRole: String, Sendable, CaseIterable, Comparable {
    case viewer
    case support
    case admin

    /// What each action needs. The one table of who may do what.
    public enum Permission: String, Sendable, CaseIterable {
        case read
        case resendCode
        case revokeCode
        case signOutDevice
        case signOutEverywhere
        case resendConfirmation
        case movePurchase
        case entitlements
        case exportAccount
        case deleteAccount
        case retryDelivery
        case manageOperators

        /// The least role that holds this permission.
        public var minimumRole: OperatorRole {
            switch self {
            case .read: .viewer
            case .resendCode, .revokeCode, .signOutDevice, .signOutEverywhere, .resendConfirmation, .movePurchase: .support
            case .entitlements, .exportAccount, .deleteAccount, .retryDelivery, .manageOperators: .admin
            }
        }
    }

    /// Whether this role holds `permission`.
    public func allows(_ permission: Permission) -> Bool { self >= permission.minimumRole }

    private var rank: Int {
        switch self {
        case .viewer: 0
        case .support: 1
        case .admin: 2
        }
    }

    public static func < (lhs: OperatorRole, rhs: OperatorRole) -> Bool { lhs.rank < rhs.rank }
}
