import Foundation
import Integrations
import Testing
import TestSupport

/// Issue 44, items 2 and 3: Stripe signs with the old and the new secret during a roll (several
/// `v1=` in one `Stripe-Signature`); our events carry one `v1,` signature per endpoint secret.
@Suite("Secret rolls: Stripe's webhook secrets and events endpoints' secrets")
struct SecretRollTests {
    static let eventFile = "checkout.session.completed"
    static let vectorSecret = "whsec_test_secret"

    @Test("A shared signed event verifies under [new, old] and [old, new] when old is the one that signed it; not under [new] alone")
    func stripeAnySecret() throws {
        let body = try SharedVectors.bytes("stripe/events/\(Self.eventFile).json")
        let header = String(decoding: try SharedVectors.bytes("stripe/events/\(Self.eventFile).sig"), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let at = Date(timeIntervalSince1970: 1_700_000_000)
        for secrets in [["whsec_new_after_the_roll", Self.vectorSecret], [Self.vectorSecret, "whsec_new_after_the_roll"]] {
            try StripeWebhookVerifier(secrets: secrets).verify(payload: body, signatureHeader: header, now: at)
        }
        #expect(throws: StripeError.self) {
            try StripeWebhookVerifier(secrets: ["whsec_new_after_the_roll"]).verify(payload: body, signatureHeader: header, now: at)
        }
    }

    @Test("During Stripe's roll: one header with a v1 per secret verifies under either secret alone and under both")
    func stripeRollHeader() throws {
        // The shared vector "valid_second_of_two_v1" is Stripe's own shape of a roll header.
        struct Vector: Decodable { let name: String; let secret: String; let payload: String; let header: String; let now: Int64? }
        let vectors = try JSONDecoder().decode([Vector].self, from: Data(SharedVectors.bytes("stripe/webhook_vectors.json")))
        let roll = try #require(vectors.first { $0.name == "valid_second_of_two_v1" })
        let now = Date(timeIntervalSince1970: TimeInterval(roll.now ?? 1_700_000_000))
        for secrets in [[roll.secret], ["whsec_other", roll.secret], [roll.secret, "whsec_other"]] {
            try StripeWebhookVerifier(secrets: secrets).verify(payload: Array(roll.payload.utf8), signatureHeader: roll.header, now: now)
        }
        #expect(throws: StripeError.self) {
            try StripeWebhookVerifier(secrets: ["whsec_other", "whsec_third"]).verify(
                payload: Array(roll.payload.utf8), signatureHeader: roll.header, now: now)
        }
    }

    @Test("Events: with [new, spec's] each delivery carries two v1 signatures, space-separated, the spec's exactly as published")
    func eventsTwoSignatures() throws {
        struct Vector: Decodable {
            let secret: String, body: String, id: String, timestamp: String, signature: String
            enum CodingKeys: String, CodingKey {
                case secret, body
                case id = "webhook-id", timestamp = "webhook-timestamp", signature = "webhook-signature"
            }
        }
        let vector = try JSONDecoder().decode(Vector.self, from: Data(try SharedVectors.bytes("standard-webhooks/signature.json")))
        let newSecret = "whsec_" + Data(repeating: 42, count: 32).base64EncodedString()
        let signer = try StandardWebhookSigner(secrets: [newSecret, vector.secret])
        let timestamp = try #require(Int(vector.timestamp))
        let header = try signer.signature(id: vector.id, timestamp: timestamp, body: Array(vector.body.utf8))
        let parts = header.split(separator: " ").map(String.init)
        #expect(parts.count == 2 && parts.allSatisfy { $0.hasPrefix("v1,") })
        #expect(parts[1] == vector.signature, "the old secret's signature is the specification's own")
        #expect(
            parts[0] == (try StandardWebhookSigner(secret: newSecret).signature(id: vector.id, timestamp: timestamp, body: Array(vector.body.utf8))))
        // A receiver holding only one of the secrets verifies the delivery.
        for secret in [newSecret, vector.secret] {
            #expect(
                try StandardWebhookSigner(secret: secret).verify(header: header, id: vector.id, timestamp: timestamp, body: Array(vector.body.utf8)))
        }
        #expect(throws: (any Error).self) { try StandardWebhookSigner(secrets: []) }
    }
}
