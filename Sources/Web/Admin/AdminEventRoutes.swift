import Domain
import Foundation
import HTTPCore
import HTTPRouting
import UseCases

/// `GET /admin/v1/events?status=&limit=` and `POST /admin/v1/events/{id}/redeliver`: events to
/// the app's backend as operators see them (one item per event and endpoint, never the body).
struct AdminEventRoutes {
    let operations: OperatorActions
    let now: @Sendable () -> Date

    func add(to group: inout RouteGroup) {
        group.add(.get, "/admin/v1/events") { [operations] request, _ in
            let status = request.queryParameter("status").flatMap { $0.isEmpty ? nil : $0 }
            let entries = try await operations.events(status: status, limit: try AdminQuery.limit(request))
            return .json { json in
                json.array("events", entries) { json, entry in
                    json.object { item in Self.write(entry, into: &item) }
                }
            }
        }
        group.add(.post, "/admin/v1/events/{id}/redeliver") { [operations, now] _, context in
            let id = context.parameters["id"] ?? ""
            let queued = try await operations.redeliver(eventID: id, by: AdminActor.from(context), now: now())
            return .json { json in
                json.string("id", id)
                json.string("status", "pending")
                json.int("deliveries", queued)
            }
        }
    }

    static func write(_ entry: EventStore.Entry, into item: inout JSONWriter) {
        item.string("id", entry.eventID)
        item.string("type", entry.type)
        item.string("account_id", entry.accountID)
        item.int("sequence", Int(entry.sequence))
        item.string("occurred_at", Timestamp.rfc3339(entry.occurredAt))
        item.string("endpoint_id", entry.endpointID)
        item.string("status", entry.status)
        item.int("attempts", entry.attempts)
        item.int("last_status", entry.lastStatus)
        item.string("last_error", entry.lastError)
        item.string("next_attempt_at", entry.nextAttemptAt.map(Timestamp.rfc3339))
        item.string("delivered_at", entry.deliveredAt.map(Timestamp.rfc3339))
    }
}
