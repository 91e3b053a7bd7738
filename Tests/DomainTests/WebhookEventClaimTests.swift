import Domain
import Foundation
import Storage
import Testing

/// An event's id claimed in its transaction (`WebhookEventLog.claim`): the first delivery keeps
/// it with its effects; a repeat is refused and keeps nothing, on SQLite (at once) and on
/// PostgreSQL (where the claim rides with the next statement).
@Suite("An event claimed once")
struct WebhookEventClaimTests {
    @Test("A repeat's claim is refused (StorageError.isClaimRefused) and its transaction keeps nothing, written before the claim or after it")
    func repeatKeepsNothing() throws {
        let db = try TestDatabase()
        let marker = "INSERT INTO webhook_events (source, event_id, event_type, received_at) VALUES ('test', ?, 'marker', 0)"
        func deliver(_ attempt: Int) throws {
            try db.write { connection in
                try connection.executeDeferred(marker, ["before-\(attempt)"])
                try WebhookEventLog.claim(source: "stripe", eventID: "evt_1", type: "customer.subscription.updated", on: connection, now: Fixtures.t0)
                try connection.executeDeferred(marker, ["after-\(attempt)"])
                _ = try connection.queryOne("SELECT count(*) AS n FROM webhook_events")
            }
        }
        try deliver(1)
        let refused = #expect(throws: StorageError.self) { try deliver(2) }
        #expect(refused.map(WebhookEventLog.isDuplicate) == true)
        #expect(refused?.isUniqueViolation == false, "a refusal, not a failure")
        let kept = try db.database.readSync { connection in
            try connection.query("SELECT event_id FROM webhook_events ORDER BY event_id").map { try $0.string("event_id") }
        }
        #expect(kept == ["after-1", "before-1", "evt_1"])
        #expect(try db.database.readSync { try WebhookEventLog.contains(source: "stripe", eventID: "evt_1", on: $0) })
    }
}
