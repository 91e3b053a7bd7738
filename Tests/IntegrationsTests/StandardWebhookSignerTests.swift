import Foundation
import HTTPCore
import HTTPRouting
import Crypto
import Integrations
import Testing
import TestSupport

@Suite("Standard Webhooks signing")
struct StandardWebhookSignerTests {
    struct Vector: Decodable {
        let secret: String
        let webhookId: String
        let webhookTimestamp: String
        let body: String
        let webhookSignature: String

        enum CodingKeys: String, CodingKey {
            case secret, body
            case webhookId = "webhook-id"
            case webhookTimestamp = "webhook-timestamp"
            case webhookSignature = "webhook-signature"
        }
    }

    static func vector() throws -> Vector {
        try JSONDecoder().decode(Vector.self, from: Data(try SharedVectors.bytes("standard-webhooks/signature.json")))
    }

    @Test("The specification's example signs to its published signature")
    func specificationVector() throws {
        let vector = try Self.vector()
        let signer = try StandardWebhookSigner(secret: vector.secret)
        let timestamp = try #require(Int(vector.webhookTimestamp))
        #expect(try signer.signature(id: vector.webhookId, timestamp: timestamp, body: Array(vector.body.utf8)) == vector.webhookSignature)
        let headers = try signer.headers(id: vector.webhookId, timestamp: timestamp, body: Array(vector.body.utf8))
        #expect(headers.map(\.name) == ["webhook-id", "webhook-timestamp", "webhook-signature"])
        #expect(headers.map(\.value) == [vector.webhookId, vector.webhookTimestamp, vector.webhookSignature])
    }

    @Test("Verification accepts the signature among several and rejects any change")
    func verification() throws {
        let vector = try Self.vector()
        let signer = try StandardWebhookSigner(secret: vector.secret)
        let timestamp = try #require(Int(vector.webhookTimestamp))
        let body = Array(vector.body.utf8)
        #expect(try signer.verify(header: "v1,bm90IGl0 " + vector.webhookSignature, id: vector.webhookId, timestamp: timestamp, body: body))
        #expect(try !signer.verify(header: vector.webhookSignature, id: vector.webhookId, timestamp: timestamp + 1, body: body))
        #expect(try !signer.verify(header: vector.webhookSignature, id: "msg_other", timestamp: timestamp, body: body))
        #expect(try !signer.verify(header: vector.webhookSignature, id: vector.webhookId, timestamp: timestamp, body: body + [0x20]))
        let other = try StandardWebhookSigner(secret: "whsec_" + Data(repeating: 7, count: 32).base64EncodedString())
        #expect(try !other.verify(header: vector.webhookSignature, id: vector.webhookId, timestamp: timestamp, body: body))
    }

    @Test("A secret that is not whsec_ + base64 is refused without echoing it")
    func invalidSecret() {
        #expect { try StandardWebhookSigner(secret: "whsec_not base64!") } throws: { error in
            (error as? CryptoError)?.kind == .invalidKey && "\(error)".contains("whsec_") && !"\(error)".contains("not base64!")
        }
        #expect(throws: CryptoError(.invalidKey, "the webhook secret's key is empty")) { try StandardWebhookSigner(secret: "whsec_") }
    }
}
