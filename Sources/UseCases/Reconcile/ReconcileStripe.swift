import Domain
import Foundation
import Integrations
import Logging

/// Stripe's catch-up: `GET /v1/events` from the cursor (Stripe keeps 30 days), every type
/// `ApplyStripeEvent` acts on, applied oldest first exactly as the webhook applies them (an event
/// already received is a duplicate and changes nothing). Stripe lists newest first, so a window
/// is read whole before anything is applied; a window holding more than `maxEvents` is halved
/// until it fits, and the cursor moves to its end.
struct ReconcileStripe: ProviderReconciler {
    let client: StripeClient
    let apply: ApplyStripeEvent
    let limits: ReconcileLimits
    let logger: Logger

    var provider: String { Platform.stripe.rawValue }

    /// Stripe keeps events for 30 days.
    static let retention: TimeInterval = 30 * 86_400

    func reconcile(from entry: ReconcileLedger.Entry?, since: Date?, now: Date) async -> ReconcileLedger.RunRecord {
        let start = max(since ?? entry?.cursorAt ?? now.addingTimeInterval(-limits.firstLookback), now.addingTimeInterval(-Self.retention + 60))
        let types = StripeEvent.handledTypes.sorted()
        var end = now
        var events: [StripeEvent] = []
        var truncated = false
        do {
            while true {
                (events, truncated) = try await read(from: start, to: end, types: types)
                guard truncated, end.timeIntervalSince(start) > 1 else { break }
                end = start.addingTimeInterval((end.timeIntervalSince(start) / 2).rounded(.down))
            }
        } catch {
            logger.warning("reconcile_unavailable", [("provider", .string(provider)), ("error", .string("\(error)"))])
            return .init(outcome: ReconcileLedger.RunRecord.unavailable, error: "\(error)", checked: 0, changes: 0, cursorAt: start)
        }
        var changes = 0
        var checked = events.count
        let fresh: [StripeEvent]
        do {
            fresh = try await apply.unseen(events.reversed())
        } catch {
            return .init(outcome: ReconcileLedger.RunRecord.failed, error: "\(error)", checked: 0, changes: 0, cursorAt: start)
        }
        checked -= fresh.count
        for event in fresh {
            do {
                if try await apply.apply(event, now: now) == .applied {
                    changes += 1
                    logger.info("reconcile_change", [("provider", .string(provider)), ("event_id", .string(event.id)), ("type", .string(event.type))])
                }
                checked += 1
            } catch {
                // Stripe (read for the event) or the database failed: stop here, retry from this event.
                logger.warning(
                    "reconcile_unavailable", [("provider", .string(provider)), ("event_id", .string(event.id)), ("error", .string("\(error)"))])
                return .init(
                    outcome: ReconcileLedger.RunRecord.unavailable, error: "\(error)", checked: checked, changes: changes,
                    cursorAt: max(start, event.created))
            }
        }
        // Read again from a little before the end next time; a halved window moves on from its end.
        let next = truncated ? end : max(start, end.addingTimeInterval(-limits.overlap))
        return .init(outcome: ReconcileLedger.RunRecord.ok, checked: checked, changes: changes, cursorAt: next)
    }

    /// Every event of `types` in `[from, to]`, newest first; `truncated` when more than
    /// `maxEvents` match.
    private func read(from: Date, to: Date, types: [String]) async throws -> (events: [StripeEvent], truncated: Bool) {
        var events: [StripeEvent] = []
        var after: String?
        while true {
            let page = try await client.listEvents(from: from, to: to, types: types, startingAfter: after)
            for skipped in page.unreadable {
                logger.warning("stripe_event_ignored", [("event_id", .string(skipped.id)), ("reason", .string(skipped.reason))])
            }
            events += page.events
            guard page.hasMore, let last = page.lastID else { return (events, false) }
            if events.count >= limits.maxEvents { return (events, true) }
            after = last
        }
    }
}
