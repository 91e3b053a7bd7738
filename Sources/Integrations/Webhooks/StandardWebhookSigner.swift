import Crypto
import Foundation

/// Signs outgoing webhooks as the Standard Webhooks specification says, so receivers can verify
/// them with any Standard Webhooks library: headers `webhook-id`, `webhook-timestamp` (unix
/// seconds) and `webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, keyed by
/// the base64-decoded part of the `whsec_...` secret.
public struct StandardWebhookSigner: Sendable {
    /// One key per secret, in the order given (newest first during a roll).
    private let macs: [HMACSHA256]

    /// - Throws: `CryptoError` (`.invalidKey` for a secret that is not `whsec_` followed by non-empty
    ///   base64; the message never contains the secret), or from OpenSSL.
    public init(secret: String) throws {
        try self.init(secrets: [secret])
    }

    /// A signer for an endpoint whose receiver is rolling its secret: each attempt carries one
    /// `v1,` signature per secret, space-separated, so a receiver holding either verifies.
    /// - Throws: as `init(secret:)`, for each secret; `.invalidKey` for an empty list.
    public init(secrets: [String]) throws {
        guard !secrets.isEmpty else { throw CryptoError(.invalidKey, "no webhook secret is given") }
        macs = try secrets.map { secret in
            let encoded = secret.hasPrefix("whsec_") ? String(secret.dropFirst(6)) : secret
            let key: [UInt8]
            do {
                key = try Base64.decode(encoded)
            } catch {
                throw CryptoError(.invalidKey, "the webhook secret is not whsec_ followed by base64")
            }
            guard !key.isEmpty else { throw CryptoError(.invalidKey, "the webhook secret's key is empty") }
            return try HMACSHA256(key: key)
        }
    }

    /// `v1,<base64>` for one attempt, one per secret, space-separated.
    /// - Throws: `CryptoError` from OpenSSL.
    public func signature(id: String, timestamp: Int, body: [UInt8]) throws -> String {
        try signatures(id: id, timestamp: timestamp, body: body).joined(separator: " ")
    }

    /// `v1,<base64>` of the message under each secret, in order.
    private func signatures(id: String, timestamp: Int, body: [UInt8]) throws -> [String] {
        var content = Array("\(id).\(timestamp).".utf8)
        content.append(contentsOf: body)
        return try macs.map { "v1," + Base64.encode(try $0.authenticationCode(for: content)) }
    }

    /// The three headers of one attempt (signed afresh each time; the id stays the event's).
    /// - Throws: `CryptoError` from OpenSSL.
    public func headers(id: String, timestamp: Int, body: [UInt8]) throws -> [(name: String, value: String)] {
        [("webhook-id", id), ("webhook-timestamp", String(timestamp)), ("webhook-signature", try signature(id: id, timestamp: timestamp, body: body))]
    }

    /// Whether one of the space-separated `v1,` signatures in `header` is the message's signature
    /// under one of this signer's secrets, compared in constant time (what a receiver does; used by tests).
    /// - Throws: `CryptoError` from OpenSSL.
    public func verify(header: String, id: String, timestamp: Int, body: [UInt8]) throws -> Bool {
        let expected = try signatures(id: id, timestamp: timestamp, body: body).map { Array($0.utf8) }
        var matched = false
        for candidate in header.split(separator: " ") {
            for signature in expected where ConstantTime.equals(Array(candidate.utf8), signature) { matched = true }
        }
        return matched
    }
}
