import Domain
import Foundation
import Mail
import QRCode
import Storage

/// Queues a purchase's reminder mail (`redemption_reminder`) in the caller's transaction: its
/// live code (a fresh one when that expired, reported as `code.issued`), the redeem link and its
/// QR code, in the buyer's language, with a one-click unsubscribe link (RFC 8058).
public struct ReminderMail: Sendable {
    /// The reminders' template.
    public static let template = "redemption_reminder"
    /// The parameter naming the purchase (the send check reads it).
    public static let purchaseParameter = "purchase_id"

    let codeMail: CodeMail
    let vault: CodeVault
    let codeTTL: TimeInterval
    let events: EventQueue

    /// - Parameters: `codeTTL` is the life of a fresh code (`redemption.code_ttl_seconds`).
    public init(codeMail: CodeMail, vault: CodeVault, codeTTL: TimeInterval, events: EventQueue = .disabled) {
        self.codeMail = codeMail
        self.vault = vault
        self.codeTTL = codeTTL
        self.events = events
    }

    /// Queues reminder `index` (0-based) of `purchase`; false when there is nothing to remind of
    /// (no address, no usable code). Once per reminder: its idempotency key names both.
    /// - Throws: `StorageError`, `CryptoError`, `MailError`.
    func queue(reminder index: Int, purchase: Purchase, on connection: Connection, now: Date) throws -> Bool {
        guard let email = purchase.purchaserEmail, let latest = try CodeRepository.latest(purchaseID: purchase.id, on: connection),
            latest.status == .live
        else { return false }
        let code: RedemptionCode
        let expiresAt: Date
        if latest.isExpired(at: now) {
            let issued = try CodeRepository.issue(purchaseID: purchase.id, ttl: codeTTL, vault: vault, on: connection, now: now)
            try events.codeIssued(issued.record, purchase: purchase, on: connection, now: now)
            (code, expiresAt) = (issued.code, issued.record.expiresAt)
        } else {
            (code, expiresAt) = (try CodeRepository.reveal(latest, vault: vault), latest.expiresAt)
        }
        var values = try codeMail.parameters(code: code, expiresAt: expiresAt, purchase: purchase, on: connection)
        let token = try ReminderUnsubscribeRepository.issue(purchaseID: purchase.id, on: connection, now: now)
        // In the mail's language, as its other links: the page it opens speaks it too.
        let unsubscribe = codeMail.links.url("/mail/unsubscribe/" + token, locale: values[MailComposer.localeParameter])
        values[MailComposer.listUnsubscribeParameter] = unsubscribe
        values["unsubscribe_url"] = unsubscribe
        values[Self.purchaseParameter] = purchase.id
        values["reminder_number"] = String(index + 1)
        if let symbol = try? QRCode(encoding: codeMail.links.url("/redeem/" + code.display)) {
            values["qr_svg"] = symbol.svg(label: code.display).filter { $0 != "\n" && $0 != "\r" }
        }
        try codeMail.mail.enqueue(
            key: "reminder:\(purchase.id):\(index)", template: Self.template, to: email, parameters: values, on: connection)
        return true
    }

    /// Wakes delivery after the transaction that queued reminders committed.
    func queued() { codeMail.queued() }
}
