import Domain
import HTTPCore
import HTTPRouting
import UseCases

/// `GET /admin/v1/outbox?status=`: the mail outbox as operators see it (no bodies, no codes,
/// recipients masked).
struct AdminOutboxRoutes {
    let outbox: ViewOutbox

    func add(to group: inout RouteGroup) {
        group.add(.get, "/admin/v1/outbox") { [outbox] request, _ in
            let status = request.queryParameter("status").flatMap { $0.isEmpty ? nil : $0 }
            let entries = try await outbox.messages(status: status, limit: try AdminQuery.limit(request))
            return .json { json in
                json.array("messages", entries) { json, entry in
                    json.object { item in
                        item.string("id", entry.id)
                        item.string("template", entry.template)
                        item.string("to", entry.maskedRecipient)
                        item.string("status", entry.status)
                        item.int("attempts", entry.attempts)
                        item.string("last_error", entry.lastError)
                        item.string("message_id", entry.messageID)
                        item.string("created_at", Timestamp.rfc3339(entry.createdAt))
                        item.string("next_attempt_at", entry.nextAttemptAt.map(Timestamp.rfc3339))
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
