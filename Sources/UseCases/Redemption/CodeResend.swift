import Domain
import Foundation
import Storage

/// Fresh codes for a purchase whose code expired or was asked for again, in the caller's write
/// transaction (which emails the code): throttled per purchase and per address
/// (`redemption.resend_interval_seconds`) for the automatic resends, at once for an operator's.
public struct CodeResend: Sendable {
    let policy: RedemptionPolicy
    let vault: CodeVault
    /// Where new codes are reported (`code.issued`).
    let events: EventQueue

    public init(policy: RedemptionPolicy, vault: CodeVault, events: EventQueue = .disabled) {
        self.policy = policy
        self.vault = vault
        self.events = events
    }

    /// A fresh code for `purchase` when neither it nor `email` got one within the resend
    /// interval; nil when throttled. The caller emails the code in the same transaction.
    /// - Throws: `StorageError`, `CryptoError` (random source).
    public func resendIfAllowed(purchase: Purchase, email: String, on connection: Connection, now: Date) throws -> CodeRepository.Issued? {
        let interval = policy.resendInterval
        let keys = Self.throttleKeys(purchase: purchase, email: email)
        guard try ResendThrottle.claim(keys.purchase, interval: interval, on: connection, now: now) else { return nil }
        guard try ResendThrottle.claim(keys.email, interval: interval, on: connection, now: now) else { return nil }
        return try issue(purchase: purchase, on: connection, now: now)
    }

    /// A fresh code for `purchase` now, whatever the throttle says (an operator's resend);
    /// the send is recorded so automatic resends wait their interval after it.
    /// - Throws: `StorageError`, `CryptoError` (random source).
    public func resendNow(purchase: Purchase, email: String, on connection: Connection, now: Date) throws -> CodeRepository.Issued {
        let keys = Self.throttleKeys(purchase: purchase, email: email)
        try ResendThrottle.mark(keys.purchase, on: connection, now: now)
        try ResendThrottle.mark(keys.email, on: connection, now: now)
        return try issue(purchase: purchase, on: connection, now: now)
    }

    /// A fresh code (replacing the live one), reported as `code.issued`.
    private func issue(purchase: Purchase, on connection: Connection, now: Date) throws -> CodeRepository.Issued {
        let issued = try CodeRepository.issue(purchaseID: purchase.id, ttl: policy.codeTTL, vault: vault, on: connection, now: now)
        try events.codeIssued(issued.record, purchase: purchase, on: connection, now: now)
        return issued
    }

    /// The throttle's keys: `purchase:<id>` and `email:<address>:<purchase>` (`AccountErasure` forgets the latter).
    static func throttleKeys(purchase: Purchase, email: String) -> (purchase: String, email: String) {
        ("purchase:\(purchase.id)", "email:\(email.lowercased()):\(purchase.id)")
    }
}
