import Domain
import Foundation
import Storage

/// Sends fresh codes for the active web purchases of an email, throttled per purchase and
/// per email (`redemption.resend_interval_seconds`).
struct CodeResend {
    let services: AppServices

    /// Queues a fresh code for each active Stripe purchase of `email`; returns how many.
    func resendAll(email: String, now: Date) async throws -> Int {
        let services = self.services
        return try await services.database.write { connection in
            var sent = 0
            for purchase in try PurchaseRepository.forEmail(email, platform: .stripe, on: connection) where purchase.isEntitled(at: now) {
                guard let issued = try services.redemption.resendIfAllowed(purchase: purchase, email: email, on: connection, now: now) else {
                    continue
                }
                try CodeMail(services: services).queueResent(issued, purchase: purchase, to: email, on: connection)
                sent += 1
            }
            return sent
        }
    }
}
