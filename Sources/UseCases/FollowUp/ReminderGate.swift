import Domain
import Foundation
import Mail
import Storage

/// The outbox's send check for reminders: a reminder leaves only while its purchase is still
/// paid, unlinked, unrevoked and subscribed (`ReminderEligibility`), decided as it leaves. Every
/// other mail passes (code mails themselves are never suppressed).
public struct ReminderGate: OutboxSendCheck {
    let database: Database
    let now: @Sendable () -> Date

    public init(database: Database, now: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.now = now
    }

    /// - Throws: `StorageError`.
    public func stopReason(template: String, parameters: [String: String]) async throws -> String? {
        guard template == ReminderMail.template else { return nil }
        guard let purchaseID = parameters[ReminderMail.purchaseParameter] else { return "no purchase named" }
        let now = self.now()
        return try await database.read { connection in
            try ReminderEligibility.check(purchaseID: purchaseID, on: connection, now: now)?.rawValue
        }
    }
}
