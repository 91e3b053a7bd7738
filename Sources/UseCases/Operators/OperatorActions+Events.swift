import Domain
import Foundation
import Storage

/// Events as operators see them: `GET /admin/v1/events`, `POST /admin/v1/events/{id}/redeliver`,
/// `tollgate admin events`.
extension OperatorActions {
    /// The newest deliveries first (`pending`, `delivered` or `failed`, or all); never a body.
    /// - Throws: `UseCaseError.badRequest` for an unknown status, `StorageError`.
    public func events(status: String?, limit: Int) async throws -> [EventStore.Entry] {
        if let status, !EventStore.statuses.contains(status) {
            throw UseCaseError.badRequest("status must be one of \(EventStore.statuses.joined(separator: ", ")).")
        }
        return try await database.read { try EventStore.entries(status: status, limit: limit, on: $0) }
    }

    /// Queues every delivery of an event again, due now, with a fresh 3-day retry window; audited.
    /// Returns how many deliveries were queued.
    /// - Throws: `UseCaseError.notFound` for an unknown event, `StorageError`.
    public func redeliver(eventID: String, actor: String, now: Date) async throws -> Int {
        try await redeliver(eventID: eventID, by: AuditActor(name: actor, role: .admin), now: now)
    }

    /// `redeliver` for `actor`, whose role must allow it (`UseCaseError.forbidden`, nothing done).
    public func redeliver(eventID: String, by actor: AuditActor, now: Date) async throws -> Int {
        try Self.require(.retryDelivery, actor)
        let window = events.retryWindow
        let queued = try await database.write { connection -> Int in
            guard let count = try EventStore.redeliver(eventID: eventID, retryWindow: window, on: connection, now: now) else {
                throw UseCaseError.notFound("No event \(eventID).")
            }
            try AuditLog.record(actor, action: "event.redeliver", target: eventID, details: "\(count) deliveries queued", on: connection, now: now)
            return count
        }
        events.queued()
        return queued
    }
}

extension OperatorActions {
    /// Deliveries by status (`pending`, `delivered`, `failed`), for `/metrics`.
    /// - Throws: `StorageError`.
    public func eventCounts() async throws -> [String: Int] {
        try await database.read { try EventStore.counts(on: $0) }
    }
}
