import Foundation

/// One entitlement of an account (`premium`, ...): what the app unlocks.
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
public struct Entitlement: Codable, Sendable, Equatable {
    /// The entitlement's name in the service's config.
    public let id: String
    /// Whether it is in force now.
    public let active: Bool
    /// When it ends; nil for lifetime purchases.
    public let expiresAt: Date?
    /// Where it comes from: `stripe`, `app_store`, `play_store`, or `manual` for an operator's grant
    /// from the console (only in `GET /api/v1/entitlements`).
    public let source: String?

    /// Makes an entitlement value (for previews and tests).
    public init(id: String, active: Bool, expiresAt: Date?, source: String? = nil) {
        self.id = id
        self.active = active
        self.expiresAt = expiresAt
        self.source = source
    }

    enum CodingKeys: String, CodingKey {
        case id, active, source
        case expiresAt = "expires_at"
    }
}

/// The answer of `GET /api/v1/entitlements`.
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
public struct Entitlements: Codable, Sendable, Equatable {
    /// The account they belong to; nil for an app user the service has not seen yet.
    public let accountID: String?
    /// Every entitlement of the account, active or not.
    public let entitlements: [Entitlement]

    /// Makes an entitlements value (for previews and tests).
    public init(accountID: String?, entitlements: [Entitlement]) {
        self.accountID = accountID
        self.entitlements = entitlements
    }

    /// Whether the entitlement `id` is active: the check an app makes before unlocking.
    public func isActive(_ id: String) -> Bool {
        entitlements.contains { $0.id == id && $0.active }
    }

    enum CodingKeys: String, CodingKey {
        case entitlements
        case accountID = "account_id"
    }
}
