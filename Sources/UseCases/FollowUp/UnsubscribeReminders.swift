import Domain
import Foundation
import Storage

/// One-click unsubscribe from a purchase's reminder mails (RFC 8058, `/mail/unsubscribe/{token}`):
/// no sign-in, the token from the mail's `List-Unsubscribe` link is the only proof. An unknown,
/// malformed or used token is simply not usable: nothing says whether it ever existed.
public struct UnsubscribeReminders: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// Whether `token` can still unsubscribe (the GET page shows its button only then).
    /// - Throws: `StorageError`.
    public func isUsable(_ token: String) async throws -> Bool {
        try await database.read { try ReminderUnsubscribeRepository.purchase(ofUnused: token, on: $0) != nil }
    }

    /// Stops the reminders of the token's purchase; false (nothing changed) when the token is
    /// unknown or used.
    /// - Throws: `StorageError`.
    public func unsubscribe(_ token: String, now: Date) async throws -> Bool {
        try await database.write { try ReminderUnsubscribeRepository.use(token, on: $0, now: now) != nil }
    }
}
