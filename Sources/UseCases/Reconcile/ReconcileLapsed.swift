import Domain
import Foundation
import Logging
import Storage

/// The shared part of the store reconcilers: subscriptions whose recorded period ended without
/// news (`LapsedPurchases`), each asked once per period end through `ask`, which applies the
/// store's present answer and says whether it changed the purchase. An outage stops the pass
/// (the rest are asked next run); a purchase the store no longer knows is marked asked.
struct ReconcileLapsed: Sendable {
    let platform: Platform
    let database: Database
    let limits: ReconcileLimits
    let logger: Logger

    /// What the pass did; `failure` set when it stopped on an outage.
    struct Result {
        var checked = 0
        var changes = 0
        var failure: (any Error)?
    }

    func run(now: Date, ask: (Purchase) async throws -> Bool) async -> Result {
        var result = Result()
        let platform = self.platform
        let oldest = now.addingTimeInterval(-limits.lapsedLookback)
        let limit = limits.maxLapsed
        let due: [Purchase]
        do {
            due = try await database.read { try LapsedPurchases.due(platform: platform, now: now, oldest: oldest, limit: limit, on: $0) }
        } catch {
            result.failure = error
            return result
        }
        for purchase in due {
            guard let expiry = purchase.expiresAt else { continue }
            do {
                if try await ask(purchase) {
                    result.changes += 1
                    logger.info("reconcile_change", [("provider", .string(platform.rawValue)), ("purchase_id", .string(purchase.id))])
                }
                result.checked += 1
                try await database.write { try LapsedPurchases.markAsked(purchaseID: purchase.id, expiry: expiry, on: $0) }
            } catch {
                logger.warning(
                    "reconcile_unavailable",
                    [
                        ("provider", .string(platform.rawValue)), ("purchase_id", .string(purchase.id)), ("error", .string("\(error)"))
                    ])
                result.failure = error
                return result
            }
        }
        return result
    }
}
