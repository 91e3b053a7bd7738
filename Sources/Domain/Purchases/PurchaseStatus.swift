/// The state of a purchase as the store last told us, normalised across stores.
public enum PurchaseStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// Paid and running (Stripe `active`, Apple status 1, Play `ACTIVE`, a paid one-time purchase).
    case active
    /// In a free trial (Stripe `trialing`): entitled.
    case trialing
    /// Payment failed but the store still grants access (Apple grace period, Play `IN_GRACE_PERIOD`).
    case inGracePeriod = "in_grace_period"
    /// Payment failed and access is suspended while the store retries (Stripe `past_due`/`unpaid`,
    /// Apple billing retry, Play `ON_HOLD`).
    case billingRetry = "billing_retry"
    /// Paused by the user (Play `PAUSED`, Stripe `paused`).
    case paused
    /// Will not renew but is paid until `expiresAt` (Stripe `cancel_at_period_end`, Play `CANCELED`).
    case canceled
    /// Ended.
    case expired
    /// Money returned: no access.
    case refunded
    /// Revoked by the store (Apple revocation, Play voided purchase): no access.
    case revoked
    /// Not paid yet (Stripe unpaid checkout, Play `PENDING`).
    case pending

    /// Whether this status can grant access (subject to `expiresAt`).
    public var grantsAccess: Bool {
        switch self {
        case .active, .trialing, .inGracePeriod, .canceled: true
        case .billingRetry, .paused, .expired, .refunded, .revoked, .pending: false
        }
    }
}
