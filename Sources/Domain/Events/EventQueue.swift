import Foundation
import JSON
import Storage

/// Queues events for the app's backend in the caller's transaction: one `events` row (the body
/// that will be signed and sent, with its per-account `sequence`) and one `event_deliveries` row
/// per endpoint that wants the type. The change and its event commit together or not at all;
/// the delivery worker sends them later, off the request path.
///
/// With no endpoint configured nothing is written. Never put a code, token, password or email
/// in `data`: the body is stored as is and sent to another system.
public struct EventQueue: Sendable {
    let subscriptions: [EventSubscription]
    let catalog: EntitlementCatalog
    /// How long each delivery is retried.
    public let retryWindow: TimeInterval
    let wake: @Sendable () -> Void

    /// - Parameters:
    ///   - retryWindow: how long each delivery is retried (`deadline_at`), 3 days by default.
    ///   - wake: called when an event is queued. On SQLite the worker's claim is itself a write, so
    ///     it runs after this transaction commits and sees the event (a rollback leaves it nothing
    ///     to find). A PostgreSQL backend would `NOTIFY` in the transaction instead (delivered at commit).
    public init(
        subscriptions: [EventSubscription], catalog: EntitlementCatalog, retryWindow: TimeInterval = 3 * 24 * 3600,
        wake: @escaping @Sendable () -> Void = {}
    ) {
        self.subscriptions = subscriptions
        self.catalog = catalog
        self.retryWindow = retryWindow
        self.wake = wake
    }

    /// A queue that records nothing (no endpoints configured; tests of other things).
    public static let disabled = EventQueue(subscriptions: [], catalog: EntitlementCatalog([:]))

    /// Wakes the delivery worker (after an operator queued deliveries again).
    public func queued() { wake() }

    /// Whether any endpoint wants `type`.
    public func wants(_ type: EventType) -> Bool { subscriptions.contains { $0.wants(type) } }

    /// Queues one event. `accountID` names the account it is about (its `sequence` counts per
    /// account); without one, `scope` (the purchase id) is counted instead. Returns the event
    /// id, or nil when no endpoint wants the type.
    /// - Throws: `StorageError`, `CryptoError` (random source); the caller's transaction rolls back.
    @discardableResult
    public func record(
        _ type: EventType, accountID: String?, scope: String, data: [String: JSONValue], on connection: Connection, now: Date
    ) throws -> String? {
        let endpoints = subscriptions.filter { $0.wants(type) }
        guard !endpoints.isEmpty else { return nil }
        let id = try EntityID.makeTimeOrdered("evt", at: now)
        let sequenceScope = accountID.map { "account:" + $0 } ?? scope
        guard
            let sequence = try connection.queryOne(
                """
                INSERT INTO event_sequences (scope, last_sequence) VALUES (?, 1)
                ON CONFLICT (scope) DO UPDATE SET last_sequence = event_sequences.last_sequence + 1
                RETURNING last_sequence
                """, [sequenceScope])?.int64("last_sequence")
        else { throw DomainError(.corrupt, "the event sequence of \(sequenceScope) was not returned") }
        let body = Self.body(id: id, type: type, occurredAt: now, sequence: sequence, data: data)
        let nowMS = Timestamp.milliseconds(now)
        try connection.executeDeferred(
            """
            INSERT INTO events (id, type, account_id, sequence_scope, sequence, occurred_at, body, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, [id, type.rawValue, accountID, sequenceScope, sequence, nowMS, body, nowMS])
        let deadline = Timestamp.milliseconds(now.addingTimeInterval(retryWindow))
        for endpoint in endpoints {
            try connection.executeDeferred(
                """
                INSERT INTO event_deliveries (id, event_id, endpoint_id, status, attempts, next_attempt_at, deadline_at,
                    created_at, updated_at)
                VALUES (?, ?, ?, 'pending', 0, ?, ?, ?, ?) ON CONFLICT (event_id, endpoint_id) DO NOTHING
                """, [id + "." + endpoint.endpointID, id, endpoint.endpointID, nowMS, deadline, nowMS, nowMS])
        }
        wake()
        return id
    }

    /// `{"id", "type", "occurred_at", "sequence", "data"}`: the bytes every attempt signs and sends.
    /// `data`'s keys are sorted at every depth.
    static func body(id: String, type: EventType, occurredAt: Date, sequence: Int64, data: [String: JSONValue]) -> String {
        let object = JSONValue.object(data.map { (key: $0.key, value: $0.value) }).keysSorted
        let dataJSON = String(decoding: object.serialized(), as: UTF8.self)
        return
            #"{"id":"\#(id)","type":"\#(type.rawValue)","occurred_at":"\#(Timestamp.rfc3339(occurredAt))","sequence":\#(sequence),"data":\#(dataJSON)}"#
    }
}
