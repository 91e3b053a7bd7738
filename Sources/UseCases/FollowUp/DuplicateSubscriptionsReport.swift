import Domain
import Foundation
import Storage

/// The console's "paid twice" list: accounts holding two active auto-renewing subscriptions that
/// grant the same entitlement, from any stores (`DuplicateSubscriptions`), still both current.
public struct DuplicateSubscriptionsReport: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// The current duplicates, newest first.
    /// - Throws: `StorageError`.
    public func current(now: Date, limit: Int = 100) async throws -> [DuplicateSubscriptions.Pair] {
        try await database.read { try DuplicateSubscriptions.current(on: $0, now: now, limit: limit) }
    }
}
