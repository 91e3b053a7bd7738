import Crypto
import Domain
import Foundation

/// Seals outbox parameters with AES-256-GCM: an email waiting in the outbox carries codes and
/// sign-in links, and a copy of the database alone must not reveal them. Stored as
/// `sealed:v2:<base64 of a KeyedBox>` (the sealing key's id inside) under the current
/// `secret_keys` entry, opened under any listed one; `sealed:v1:<base64>` rows (before key ids)
/// open under any listed key too; rows written without a cipher stay plain JSON.
public struct OutboxCipher: Sendable {
    static let prefix = "sealed:v1:"
    static let keyedPrefix = "sealed:v2:"
    private let key: [UInt8]
    private let secrets: DomainSecrets?

    /// One bare key (tests, tools): seals `sealed:v1:`, opens either form sealed under it.
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

    func seal(_ json: String, outboxID: String) throws -> String {
        do {
            if let secrets {
                return Self.keyedPrefix
                    + Base64.encode(try KeyedBox.seal(Array(json.utf8), secrets: secrets, purpose: \.mailParameterKey, associatedData: Array(outboxID.utf8)))
            }
            return Self.prefix + Base64.encode(try AESGCM.seal(Array(json.utf8), key: key, associatedData: Array(outboxID.utf8)))
        } catch {
            throw MailError.permanent("the template parameters cannot be sealed")
        }
    }

    /// The box inside `stored` and whether it is keyed (`sealed:v2:`); nil for plain JSON.
    static func box(of stored: String) throws -> (bytes: [UInt8], keyed: Bool)? {
        if stored.hasPrefix(keyedPrefix) { return (try Base64.decode(String(stored.dropFirst(keyedPrefix.count))), true) }
        if stored.hasPrefix(prefix) { return (try Base64.decode(String(stored.dropFirst(prefix.count))), false) }
        return nil
    }

    /// The JSON inside `stored`, or `stored` itself when it was never sealed.
    static func open(_ stored: String, outboxID: String, with cipher: OutboxCipher?) throws -> String {
        guard stored.hasPrefix(prefix) || stored.hasPrefix(keyedPrefix) else { return stored }
        guard let cipher else { throw MailError.permanent("the parameters are sealed and no outbox key is configured") }
        do {
            guard let (sealed, _) = try box(of: stored) else { return stored }
            let associatedData = Array(outboxID.utf8)
            if let secrets = cipher.secrets {
                return String(decoding: try KeyedBox.open(sealed, secrets: secrets, purpose: \.mailParameterKey, associatedData: associatedData), as: UTF8.self)
            }
            let bare = KeyedBox.keyID(of: sealed) == nil ? sealed : Array(sealed.dropFirst(KeyedBox.headerLength))
            return String(decoding: try AESGCM.open(bare, key: cipher.key, associatedData: associatedData), as: UTF8.self)
        } catch {
            throw MailError.permanent("the sealed parameters cannot be opened with the configured key")
        }
    }

    /// `stored` sealed again under the current key (a rotation), or nil when it already is (or is plain).
    /// - Throws: `MailError` when no listed key opens it.
    public func resealed(_ stored: String, outboxID: String) throws -> String? {
        guard let secrets, let (sealed, keyed) = try? Self.box(of: stored) else { return nil }
        if keyed, KeyedBox.keyID(of: sealed) == secrets.keyID { return nil }
        return try seal(try Self.open(stored, outboxID: outboxID, with: self), outboxID: outboxID)
    }

    /// The key id a stored value was sealed under: nil for `sealed:v1:` (before key ids), `""` for plain JSON.
    public static func keyID(of stored: String) -> String? {
        guard let (sealed, keyed) = try? box(of: stored) else { return "" }
        return keyed ? KeyedBox.keyID(of: sealed) : nil
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
