import Domain
import Foundation
import Storage

/// The one place a store's or Stripe's event id is checked and recorded, so each event's effect
/// happens once: `record` runs the effect and the id's insert in one transaction.
struct WebhookEvents: Sendable {
    let database: Database
    /// `stripe`, `apple` or `google`.
    let source: String

    /// Whether `id` was recorded already (a cheap read before asking an upstream anything).
    func seen(_ id: String) async throws -> Bool {
        let source = self.source
        return try await database.read { try WebhookEventLog.contains(source: source, eventID: id, on: $0) }
    }

    /// Which of `ids` were recorded before.
    func recorded(among ids: [String]) async throws -> Set<String> {
        let source = self.source
        return try await database.read { try WebhookEventLog.recorded(source: source, among: ids, on: $0) }
    }

    /// Records `id` and runs `effects` in one transaction; false (nothing run) for a duplicate.
    /// READ COMMITTED: the event id's insert waits for a concurrent one of the same id, and the
    /// effects lock the purchase they change (`PurchaseRepository.apply`; docs/POSTGRES-CONCURRENCY.md).
    func record(_ id: String, type: String, now: Date, _ effects: @escaping @Sendable (Connection) throws -> Void) async throws -> Bool {
        try await once(id, type: type, now: now, effects) != nil
    }

    /// Records `id` and runs `effects` in one transaction, as `record`, returning what `effects`
    /// returned; nil (nothing kept) for a duplicate. When `effects` throws, nothing is kept:
    /// neither the effect nor the id.
    ///
    /// The id is claimed (`WebhookEventLog.claim`): on PostgreSQL its insert goes out with the
    /// effects' first statement, one round trip fewer. For a duplicate, `effects` may run up to
    /// that statement, which then throws; the transaction rolls back (a write body may run and be
    /// undone at any time: `SQLDatabase`).
    func once<Effect: Sendable>(
        _ id: String, type: String, now: Date, _ effects: @escaping @Sendable (Connection) throws -> Effect
    ) async throws -> Effect? {
        let source = self.source
        do {
            return try await database.write(isolation: .readCommitted) { connection -> Effect? in
                try WebhookEventLog.claim(source: source, eventID: id, type: String(type.prefix(100)), on: connection, now: now)
                return try effects(connection)
            }
        } catch let error as StorageError where WebhookEventLog.isDuplicate(error) {
            return nil
        }
    }
}
