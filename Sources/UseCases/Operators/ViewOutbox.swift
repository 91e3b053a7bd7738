import Foundation
import Mail
import Storage

/// The mail outbox as operators see it (`GET /admin/v1/outbox`, `tollgate admin outbox`,
/// `/metrics`): no bodies, no parameters (they hold codes and links), recipients masked.
public struct ViewOutbox: Sendable {
    /// One message as listed.
    public struct Message: Sendable, Equatable {
        public var id: String
        public var template: String
        /// `j•••@e•••.com` (`EmailMask`).
        public var maskedRecipient: String
        /// `pending`, `sending`, `sent` or `failed`.
        public var status: String
        public var attempts: Int
        /// Why the last attempt failed, if it did.
        public var lastError: String?
        public var messageID: String
        public var createdAt: Date
        /// When the next attempt is due; nil unless the message is pending.
        public var nextAttemptAt: Date?
        public var sentAt: Date?
    }

    /// How much mail waits for the transport (`pending` or `sending`) and how much was given up (`failed`).
    public struct Depth: Sendable, Equatable {
        public var waiting: Int
        public var failed: Int
    }

    /// The statuses a listing may be narrowed to.
    public static var statuses: [String] { OutboxStatus.allCases.map(\.rawValue) }

    let store: OutboxStore

    public init(database: Database) {
        store = OutboxStore(database: database)
    }

    /// The newest messages first, only those with `status` when it is given; `limit` is clamped to 1…1000.
    /// - Throws: `UseCaseError.badRequest` for a status that is none of `statuses`, `StorageError`.
    public func messages(status: String?, limit: Int) async throws -> [Message] {
        var wanted: OutboxStatus?
        if let status {
            guard let parsed = OutboxStatus(rawValue: status) else {
                throw UseCaseError.badRequest("status must be one of \(Self.statuses.joined(separator: ", ")).")
            }
            wanted = parsed
        }
        return try await store.outboxEntries(status: wanted, limit: limit).map(Self.message)
    }

    /// An outbox entry as operators see it (metadata only, the address masked).
    static func message(_ entry: OutboxEntry) -> Message {
        Message(
            id: entry.id, template: entry.template, maskedRecipient: entry.maskedRecipient, status: entry.status.rawValue,
            attempts: entry.attempts, lastError: entry.lastError, messageID: entry.messageID, createdAt: entry.createdAt,
            nextAttemptAt: entry.status == .pending ? entry.nextAttemptAt : nil, sentAt: entry.sentAt)
    }

    /// The outbox's depth (`/metrics`).
    /// - Throws: `StorageError`.
    public func depth() async throws -> Depth {
        let depth = try await store.depth()
        return Depth(waiting: depth.waiting, failed: depth.failed)
    }
}
