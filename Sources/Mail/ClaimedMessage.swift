import Foundation
import Storage

/// An outbox row the worker has claimed (`sending`) and is about to deliver.
struct ClaimedMessage: Sendable {
    let id: String
    let template: String
    let recipient: String
    let recipientName: String?
    let parametersJSON: String
    let attempts: Int
    let messageID: String
    let createdAt: Date

    init(row: Row) throws {
        id = try row.string("id")
        template = try row.string("template")
        recipient = try row.string("recipient")
        recipientName = try row.optionalString("recipient_name")
        parametersJSON = try row.string("parameters")
        attempts = try row.int("attempts")
        messageID = try row.string("message_id")
        createdAt = OutboxID.date(try row.int64("created_at"))
    }

    /// The stored parameters, opened with `cipher` when they were sealed.
    /// - Throws: `MailError` (permanent) when the JSON is not an object of strings or cannot be opened.
    func parameters(cipher: OutboxCipher?) throws -> [String: String] {
        let json = try OutboxCipher.open(parametersJSON, outboxID: id, with: cipher)
        do {
            return try JSONDecoder().decode([String: String].self, from: Data(json.utf8))
        } catch {
            throw MailError.permanent("the stored template parameters are not a JSON object of strings")
        }
    }
}
