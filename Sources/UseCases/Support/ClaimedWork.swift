import Foundation
import Logging
import Storage

/// One pass over a durable work queue (link-out reports, answers to Apple's refund requests):
/// claim a batch in a READ COMMITTED write (a work claim: `SKIP LOCKED` keeps instances apart, as
/// the mail and event claims do, docs/POSTGRES-CONCURRENCY.md), handle each claimed item, and
/// record each outcome in a write of its own. A claim that fails is logged and counts as none; a
/// record that fails leaves the item claimed, and its lease hands it out again.
enum ClaimedWork {
    /// Returns how many items were claimed. Logs `<event>.claim_failed` and
    /// `<event>.record_failed` (the item named under `itemKey`).
    static func drain<Item: Sendable, Outcome: Sendable>(
        database: Database, logger: Logger, event: String, itemKey: String, id: (Item) -> String,
        claim: @escaping @Sendable (Connection) throws -> [Item],
        handle: (Item) async -> Outcome,
        record: @escaping @Sendable (Item, Outcome, Connection) throws -> Void
    ) async -> Int {
        let claimed: [Item]
        do {
            claimed = try await database.write(isolation: .readCommitted, claim)
        } catch {
            logger.error(event + ".claim_failed", [("error", .string("\(error)"))])
            return 0
        }
        for item in claimed {
            let outcome = await handle(item)
            do {
                try await database.write { try record(item, outcome, $0) }
            } catch {
                logger.error(event + ".record_failed", [(itemKey, .string(id(item))), ("error", .string("\(error)"))])
            }
        }
        return claimed.count
    }
}
