import Crypto
import Domain
import Foundation

/// Seals outbox parameters with AES-256-GCM: an email waiting in the outbox carries codes and
/// sign-in links, and a copy of the database alone must not reveal them. Stored as
/// `sealed:v1:<base64>`; rows written without a cipher stay plain JSON.
public struct OutboxCipher: Sendable {
    static let prefix = "sealed:v1:"
    private let key: [UInt8]

    /// - Throws: `MailError` (permanent) unless `key` is 32 bytes.
    public init(key: [UInt8]) throws {
        guard key.count == 32 else { throw MailError.permanent("the outbox key must be 32 bytes, not \(key.count)") }
        self.key = key
    }

    func seal(_ json: String, outboxID: String) throws -> String {
        do {
            return Self.prefix + Base64.encode(try AESGCM.seal(Array(json.utf8), key: key, associatedData: Array(outboxID.utf8)))
        } catch {
            throw MailError.permanent("the template parameters cannot be sealed")
        }
    }

    /// The JSON inside `stored`, or `stored` itself when it was never sealed.
    static func open(_ stored: String, outboxID: String, with cipher: OutboxCipher?) throws -> String {
        guard stored.hasPrefix(prefix) else { return stored }
        guard let cipher else { throw MailError.permanent("the parameters are sealed and no outbox key is configured") }
        do {
            let sealed = try Base64.decode(String(stored.dropFirst(prefix.count)))
            return String(decoding: try AESGCM.open(sealed, key: cipher.key, associatedData: Array(outboxID.utf8)), as: UTF8.self)
        } catch {
            throw MailError.permanent("the sealed parameters cannot be opened with the configured key")
        }
    }
}

extension OutboxCipher {
    /// Whether `stored` (an outbox row's parameters) opens with this key; plain JSON, written
    /// without a cipher, always does (`tollgate check`).
    public func opens(_ stored: String, outboxID: String) -> Bool {
        (try? Self.open(stored, outboxID: outboxID, with: self)) != nil
    }
}

extension SealedRowAudit.Column {
    /// Mail parameters in the outbox (`OutboxCipher`; plain JSON when written without one).
    public static let mailParameters = SealedRowAudit.Column(table: "mail_outbox", column: "parameters")
}
