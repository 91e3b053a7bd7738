/// The events Tollgate tells the app's backend about (API.md, "Events to the app's backend").
/// The raw values are the `type` field receivers switch on.
public enum EventType: String, Sendable, Hashable, CaseIterable {
    /// A purchase Tollgate had not seen (web checkout, store claim, notification, `/receipts`).
    case purchaseCreated = "purchase.created"
    /// A known purchase's status, expiry or product changed (renewal, cancellation, refund...).
    case purchaseUpdated = "purchase.updated"
    /// A purchase moved from one account to another (`transfer` policy, a claim).
    case purchaseTransferred = "purchase.transferred"
    /// An account holds two active auto-renewing subscriptions granting the same entitlement
    /// (paid twice); once per pair, `data.purchases` names both.
    case purchaseDuplicate = "purchase.duplicate"
    /// A redemption code was issued (first code, resend, re-issue for an expired one).
    case codeIssued = "code.issued"
    /// A code was redeemed for the first time by an app user.
    case codeRedeemed = "code.redeemed"
    /// An account was created.
    case accountCreated = "account.created"
    /// An app user now uses another account (the one holding a purchase: `switch` policy).
    case accountSwitched = "account.switched"
    /// An account confirmed its email address.
    case accountEmailConfirmed = "account.email_confirmed"
    /// An account was deleted (its personal data erased; its purchases detached).
    case accountDeleted = "account.deleted"
    /// What an account is entitled to changed; carries the full list.
    case entitlementsChanged = "entitlements.changed"
    /// Sent only by `tollgate events test`; never queued.
    case test = "test"

    /// Whether a configured filter entry (`*`, `purchase.*`, `code.redeemed`) selects this type.
    /// `*` does not select `test` (it is never queued anyway).
    public func matches(_ pattern: String) -> Bool {
        if pattern == "*" { return true }
        if pattern.hasSuffix(".*") { return rawValue.hasPrefix(pattern.dropLast()) }
        return pattern == rawValue
    }
}

/// Which event types one endpoint receives, as the queue sees it (no URL, no secret).
public struct EventSubscription: Sendable, Equatable {
    /// The endpoint's stable id (derived from its URL), stored on each delivery.
    public let endpointID: String
    /// Filter entries: `*`, `family.*` or a type.
    public let types: [String]

    public init(endpointID: String, types: [String]) {
        self.endpointID = endpointID
        self.types = types
    }

    /// Whether the endpoint wants `type`.
    public func wants(_ type: EventType) -> Bool { types.contains { type.matches($0) } }
}
