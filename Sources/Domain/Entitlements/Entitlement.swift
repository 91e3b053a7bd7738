import Foundation

/// One entitlement of an account (or of a purchase) at a moment.
public struct Entitlement: Sendable, Equatable {
    /// The entitlement's name in config (`premium`).
    public let id: String
    public let active: Bool
    /// When access ends; nil when a purchase grants it without end.
    public let expiresAt: Date?
    /// Where the granting (or last) purchase was made; nil when only an operator's manual
    /// grant (`ManualEntitlement`) gives it.
    public let source: Platform?
    /// Whether the granting purchase renews; nil when its store has not said.
    public var willRenew: Bool? = nil
    /// What the granting purchase renews into when that is another product (a pending downgrade).
    public var renewsToProductID: String? = nil

    /// `source` as the API writes it: the store, or `manual` for an operator's grant alone.
    public var sourceName: String { source?.rawValue ?? "manual" }
}
