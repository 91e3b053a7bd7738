import Domain
import HTTPCore
import HTTPRouting
import Mail

/// `GET /admin/v1/outbox?status=`: the mail outbox as operators see it (no bodies, no codes,
/// recipients masked).
struct AdminOutboxRoutes {
    let outbox: OutboxStore

    func add(to group: inout RouteGroup) {
        group.add(.get, "/admin/v1/outbox") { [outbox] request, _ in
            var status: OutboxStatus?
            if let name = request.queryParameter("status"), !name.isEmpty {
                guard let parsed = OutboxStatus(rawValue: name) else {
                    throw APIError.badRequest("status must be one of \(OutboxStatus.allCases.map(\.rawValue).joined(separator: ", ")).")
                }
                status = parsed
            }
            let limit = try AdminQuery.limit(request)
            let entries = try await outbox.outboxEntries(status: status, limit: limit)
            return .json { json in
                json.array("messages", entries) { json, entry in
                    json.object { item in
                        item.string("id", entry.id)
                        item.string("template", entry.template)
                        item.string("to", entry.maskedRecipient)
                        item.string("status", entry.status.rawValue)
                        item.int("attempts", entry.attempts)
                        item.string("last_error", entry.lastError)
                        item.string("message_id", entry.messageID)
                        item.string("created_at", Timestamp.rfc3339(entry.createdAt))
                        item.string("next_attempt_at", entry.status == .pending ? Timestamp.rfc3339(entry.nextAttemptAt) : nil)
                        item.string("sent_at", entry.sentAt.map(Timestamp.rfc3339))
                    }
                }
            }
        }
    }
}

/// Query parameters shared by admin listings.
enum AdminQuery {
    /// `limit`, 1…1000, default 100.
    /// - Throws: `APIError.badRequest` for anything else.
    static func limit(_ request: HTTPRequest) throws -> Int {
        guard let text = request.queryParameter("limit") else { return 100 }
        guard let value = Int(text), (1...1000).contains(value) else {
            throw APIError.badRequest("limit must be a whole number from 1 to 1000.")
        }
        return value
    }
}
