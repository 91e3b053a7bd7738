import Crypto
import Domain
import Foundation
import Storage

/// The first answer to a POST with an `Idempotency-Key`, kept so a repeat gets it back (24 h).
/// Answers carry codes and tokens, so they are stored sealed (AES-256-GCM under a key derived
/// from the current `secret_keys` entry, its id stored beside it (`KeyedBox`), bound to their scope and
/// key): a copy of the database reveals none, and any listed key opens them.
public struct IdempotentReplies: Sendable {
    /// A stored answer: the request's hash, status, content type and body (the body is sealed
    /// only at rest; callers see it plain).
    public typealias Reply = IdempotencyStore.Stored

    let database: Database
    let secrets: DomainSecrets

    public init(database: Database, secrets: DomainSecrets) {
        self.database = database
        self.secrets = secrets
    }

    /// The answer stored for `key` in `scope`, if one is live (one that no listed key opens, such
    /// as a row sealed under a dropped key, counts as none).
    /// - Throws: `StorageError`.
    public func find(scope: String, key idempotencyKey: String, now: Date) async throws -> Reply? {
        guard let stored = try await database.read({ try IdempotencyStore.find(scope: scope, key: idempotencyKey, on: $0, now: now) }),
            let body = try? KeyedBox.open(
                stored.body, secrets: secrets, purpose: \.idempotencyReplyKey, associatedData: Self.binding(scope, idempotencyKey))
        else { return nil }
        return Reply(requestHash: stored.requestHash, status: stored.status, contentType: stored.contentType, body: body)
    }

    /// Stores the answer, sealed (the first one wins while it is live).
    /// - Throws: `CryptoError`, `StorageError`.
    public func store(_ reply: Reply, scope: String, key idempotencyKey: String, now: Date) async throws {
        let sealed = try KeyedBox.seal(
            reply.body, secrets: secrets, purpose: \.idempotencyReplyKey, associatedData: Self.binding(scope, idempotencyKey))
        let answer = IdempotencyStore.Stored(requestHash: reply.requestHash, status: reply.status, contentType: reply.contentType, body: sealed)
        let keyID = secrets.keyID
        try await database.write { try IdempotencyStore.store(scope: scope, key: idempotencyKey, answer: answer, keyID: keyID, on: $0, now: now) }
    }

    static func binding(_ scope: String, _ key: String) -> [UInt8] { Array("\(scope)\n\(key)".utf8) }
}
