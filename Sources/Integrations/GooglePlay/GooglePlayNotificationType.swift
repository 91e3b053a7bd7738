/// `subscriptionNotification.notificationType` of a real-time developer notification.
/// Numbers Google adds later are kept in `.unknown`.
public enum GooglePlaySubscriptionNotificationType: Sendable, Hashable {
    case recovered, renewed, canceled, purchased, onHold, inGracePeriod, restarted, priceChangeConfirmed
    case deferred, paused, pauseScheduleChanged, revoked, expired, itemsChanged, cancellationScheduled
    case priceChangeUpdated, pendingPurchaseCanceled, priceStepUpConsentUpdated
    /// A number this code does not know.
    case unknown(Int)

    private static let table: [(Int, GooglePlaySubscriptionNotificationType, String)] = [
        (1, .recovered, "SUBSCRIPTION_RECOVERED"), (2, .renewed, "SUBSCRIPTION_RENEWED"),
        (3, .canceled, "SUBSCRIPTION_CANCELED"), (4, .purchased, "SUBSCRIPTION_PURCHASED"),
        (5, .onHold, "SUBSCRIPTION_ON_HOLD"), (6, .inGracePeriod, "SUBSCRIPTION_IN_GRACE_PERIOD"),
        (7, .restarted, "SUBSCRIPTION_RESTARTED"), (8, .priceChangeConfirmed, "SUBSCRIPTION_PRICE_CHANGE_CONFIRMED"),
        (9, .deferred, "SUBSCRIPTION_DEFERRED"), (10, .paused, "SUBSCRIPTION_PAUSED"),
        (11, .pauseScheduleChanged, "SUBSCRIPTION_PAUSE_SCHEDULE_CHANGED"), (12, .revoked, "SUBSCRIPTION_REVOKED"),
        (13, .expired, "SUBSCRIPTION_EXPIRED"), (17, .itemsChanged, "SUBSCRIPTION_ITEMS_CHANGED"),
        (18, .cancellationScheduled, "SUBSCRIPTION_CANCELLATION_SCHEDULED"),
        (19, .priceChangeUpdated, "SUBSCRIPTION_PRICE_CHANGE_UPDATED"),
        (20, .pendingPurchaseCanceled, "SUBSCRIPTION_PENDING_PURCHASE_CANCELED"),
        (22, .priceStepUpConsentUpdated, "SUBSCRIPTION_PRICE_STEP_UP_CONSENT_UPDATED")
    ]

    /// The type numbered `rawValue`.
    public init(rawValue: Int) {
        self = Self.table.first { $0.0 == rawValue }?.1 ?? .unknown(rawValue)
    }

    /// Google's number for the type.
    public var rawValue: Int {
        if case .unknown(let value) = self { return value }
        return Self.table.first { $0.1 == self }?.0 ?? 0
    }

    /// Google's name (`SUBSCRIPTION_PURCHASED`), or `UNKNOWN_<n>`.
    public var name: String {
        Self.table.first { $0.1 == self }?.2 ?? "UNKNOWN_\(rawValue)"
    }
}

/// `oneTimeProductNotification.notificationType`: 1 purchased, 2 canceled.
public enum GooglePlayOneTimeProductNotificationType: Sendable, Hashable {
    case purchased, canceled
    /// A number this code does not know.
    case unknown(Int)

    /// The type numbered `rawValue`.
    public init(rawValue: Int) {
        switch rawValue {
        case 1: self = .purchased
        case 2: self = .canceled
        default: self = .unknown(rawValue)
        }
    }

    /// Google's number for the type.
    public var rawValue: Int {
        switch self {
        case .purchased: 1
        case .canceled: 2
        case .unknown(let value): value
        }
    }
}
