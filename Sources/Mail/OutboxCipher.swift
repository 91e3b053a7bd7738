import Crypto
import Domain
import Foundation

/// Seals outbox parameters with AES-256-GCM: an email waiting in the outbox carries codes and
/// sign-in links, and a copy of the database alone must not reveal them. Stored as
/// `sealed:v1:<base64>` under the current `secret_keys` entry, whose id is stored beside it
/// (`mail_outbox.parameters_key_id`); the box keeps the form of the release before key ids, which
/// may be sending mail beside this one during an upgrade. Opens under any listed key (the one
/// it names first); rows written without a cipher stay plain JSON.
public struct OutboxCipher: Sendable {
    static let prefix = "sealed:v1:"
    private let secrets: DomainSecrets?
    private let key: [UInt8]

    /// One bare key (tests, tools): seals and opens under it; records no key id.
    /// - Throws: `MailError` (permanent) unless `key` is 32 bytes.
    public init(key: [UInt8]) throws {
        guard key.count == 32 else { throw MailError.permanent("the outbox key must be 32 bytes, not \(key.count)") }
        self.key = key
        secrets = nil
    }

    /// The listed keys of `secrets`: seals under the current one, opens under any.
    public init(secrets: DomainSecrets) {
        key = secrets.mailParameterKey
        self.secrets = secrets
    }

    /// The id of the key this cipher seals under (nil for a bare key).
    public var keyID: String? { secrets?.keyID }

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
            let associatedData = Array(outboxID.utf8)
            guard let secrets = cipher.secrets else {
                return String(decoding: try AESGCM.open(sealed, key: cipher.key, associatedData: associatedData), as: UTF8.self)
            }
            return String(
                decoding: try KeyedBox.open(sealed, secrets: secrets, purpose: \.mailParameterKey, associatedData: associatedData), as: UTF8.self)
        } catch {
            throw MailError.permanent("the sealed parameters cannot be opened with the configured key")
        }
    }

    /// `stored` sealed again under the current key (a rotation), or nil when it already is
    /// (`keyID` is the row's `parameters_key_id`) or is plain JSON.
    /// - Throws: `MailError` when no listed key opens it.
    public func resealed(_ stored: String, outboxID: String, keyID: String?) throws -> String? {
        guard let secrets, stored.hasPrefix(Self.prefix), keyID != secrets.keyID else { return nil }
        return try seal(try Self.open(stored, outboxID: outboxID, with: self), outboxID: outboxID)
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
