import Domain
import Foundation
import Storage

/// Sends fresh codes for the active web purchases of an email (`POST /api/v1/codes/resend` and
/// the expired-code page's form), throttled per purchase and per email
/// (`redemption.resend_interval_seconds`). Callers answer the same whatever the count: no
/// account enumeration.
public struct ResendCodes: Sendable {
    let database: Database
    let resend: CodeResend
    let codeMail: CodeMail

    public init(database: Database, resend: CodeResend, codeMail: CodeMail) {
        self.database = database
        self.resend = resend
        self.codeMail = codeMail
    }

    /// Queues a fresh code for each active Stripe purchase of `email`; returns how many.
    /// - Throws: `StorageError`.
    @discardableResult
    public func resend(to email: String, now: Date) async throws -> Int {
        let resend = self.resend
        let codeMail = self.codeMail
        let sent = try await database.write { connection in
            var sent = 0
            for purchase in try PurchaseRepository.forEmail(email, platform: .stripe, on: connection) where purchase.isEntitled(at: now) {
                guard let issued = try resend.resendIfAllowed(purchase: purchase, email: email, on: connection, now: now) else {
                    continue
                }
                try codeMail.queueResent(issued, purchase: purchase, to: email, on: connection)
                sent += 1
            }
            return sent
        }
        if sent > 0 { codeMail.queued() }
        return sent
    }
}
