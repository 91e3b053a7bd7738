import Foundation
import Integrations
import Testing
import TestSupport

@Suite("Stripe webhook verifier")
struct StripeWebhookVerifierTests {
    /// One case of `vectors/stripe/webhook_vectors.json`.
    struct VectorCase: Decodable, Sendable, CustomTestStringConvertible {
        let name: String
        let secret: String
        let payload: String
        let header: String
        let now: Int64?
        let tolerance: Int64?
        let expect: String
        var testDescription: String { name }
    }

    static func vectorCases() throws -> [VectorCase] {
        try JSONDecoder().decode([VectorCase].self, from: Data(SharedVectors.bytes("stripe/webhook_vectors.json")))
    }

    static let eventFiles = [
        "charge.refunded", "checkout.session.completed", "customer.subscription.deleted",
        "customer.subscription.updated", "invoice.paid"
    ]

    static func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }

    @Test("The shared vector file holds the 11 documented cases")
    func vectorFileIsComplete() throws {
        #expect(try Self.vectorCases().count == 11)
    }

    @Test("Each shared signature vector gets its expected outcome", arguments: try vectorCases())
    func vector(_ testCase: VectorCase) throws {
        let verifier = StripeWebhookVerifier(secret: testCase.secret, tolerance: testCase.tolerance.map { .seconds($0) })
        let now = testCase.now.map(Self.date) ?? Date()
        let outcome: String
        do {
            try verifier.verify(payload: Array(testCase.payload.utf8), signatureHeader: testCase.header, now: now)
            outcome = "ok"
        } catch StripeError.webhook(let error) {
            switch error {
            case .missingHeader: outcome = "missing_header"
            case .malformedHeader: outcome = "unable_to_extract_timestamp"
            case .noV1Signature: outcome = "no_signatures_with_expected_scheme"
            case .timestampOutsideTolerance: outcome = "timestamp_outside_tolerance"
            case .noMatchingSignature: outcome = "no_matching_signature"
            }
        }
        #expect(outcome == testCase.expect)
    }

    @Test(
        "Each signed event file verifies at its t, not 301 s later, not under another secret, not with a flipped byte",
        arguments: eventFiles)
    func signedEventFile(_ name: String) throws {
        let body = try SharedVectors.bytes("stripe/events/\(name).json")
        let header = String(decoding: try SharedVectors.bytes("stripe/events/\(name).sig"), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let verifier = StripeWebhookVerifier(secret: "whsec_test_secret")
        let t = Self.date(1_700_000_000)

        let event = try verifier.verifiedEvent(payload: body, signatureHeader: header, now: t)
        #expect(event.type == name)

        #expect(throws: StripeError.webhook(.timestampOutsideTolerance(ageSeconds: 301, toleranceSeconds: 300))) {
            try verifier.verify(payload: body, signatureHeader: header, now: t.addingTimeInterval(301))
        }
        #expect(throws: StripeError.webhook(.noMatchingSignature)) {
            try StripeWebhookVerifier(secret: "whsec_other_secret").verify(payload: body, signatureHeader: header, now: t)
        }
        for index in [0, body.count / 2, body.count - 1] {
            var tampered = body
            tampered[index] ^= 0x01
            #expect(throws: StripeError.webhook(.noMatchingSignature)) {
                try verifier.verify(payload: tampered, signatureHeader: header, now: t)
            }
        }
    }

    @Test("A missing or blank header is its own error")
    func missingHeader() {
        let verifier = StripeWebhookVerifier(secret: "whsec_test_secret")
        #expect(throws: StripeError.webhook(.missingHeader)) { try verifier.verify(payload: [], signatureHeader: nil, now: Date()) }
        #expect(throws: StripeError.webhook(.missingHeader)) { try verifier.verify(payload: [], signatureHeader: "  ", now: Date()) }
    }

    @Test("A header without an integer t is malformed")
    func malformedTimestamp() {
        let verifier = StripeWebhookVerifier(secret: "whsec_test_secret")
        for header in ["t=abc,v1=00", "t=-5,v1=00", "t=,v1=00", "v1=00", "t=1e9,v1=00", "t=99999999999999999999999,v1=00"] {
            var rejectedAsMalformed = false
            do {
                try verifier.verify(payload: [], signatureHeader: header, now: Date())
            } catch StripeError.webhook(.malformedHeader) {
                rejectedAsMalformed = true
            } catch {
                Issue.record("\(header): \(error)")
            }
            #expect(rejectedAsMalformed, "\(header)")
        }
    }

    @Test("The stale message says how old the timestamp is and the tolerance")
    func staleMessage() throws {
        let body = Array(#"{"id":"evt_1"}"#.utf8)
        let header = FakeStripe.signatureHeader(body: body, timestamp: 1_700_000_000, secret: "whsec_x")
        let verifier = StripeWebhookVerifier(secret: "whsec_x")
        do {
            try verifier.verify(payload: body, signatureHeader: header, now: Self.date(1_700_000_412))
            Issue.record("a 412 s old timestamp was accepted")
        } catch StripeError.webhook(let error) {
            #expect(error.description == "Stripe-Signature timestamp is 412 s old; tolerance is 300 s")
        }
    }

    @Test("A timestamp beyond the tolerance in the future is rejected; within it, accepted")
    func futureTimestamp() throws {
        let body = Array(#"{"id":"evt_1"}"#.utf8)
        let header = FakeStripe.signatureHeader(body: body, timestamp: 1_700_000_000, secret: "whsec_x")
        let verifier = StripeWebhookVerifier(secret: "whsec_x")
        try verifier.verify(payload: body, signatureHeader: header, now: Self.date(1_700_000_000 - 300))
        do {
            try verifier.verify(payload: body, signatureHeader: header, now: Self.date(1_700_000_000 - 3600))
            Issue.record("a timestamp an hour in the future was accepted")
        } catch StripeError.webhook(let error) {
            #expect(error == .timestampOutsideTolerance(ageSeconds: -3600, toleranceSeconds: 300))
            #expect(error.description.contains("3600 s in the future"))
        }
    }

    @Test("Signatures cover the raw bytes, including invalid UTF-8 and CRLF")
    func rawBytes() throws {
        let body: [UInt8] = [0x7B, 0xFF, 0xFE, 0x0D, 0x0A, 0x7D]
        let header = FakeStripe.signatureHeader(body: body, timestamp: 1_700_000_000, secret: "whsec_raw")
        let verifier = StripeWebhookVerifier(secret: "whsec_raw")
        try verifier.verify(payload: body, signatureHeader: header, now: Self.date(1_700_000_001))
        #expect(throws: StripeError.webhook(.noMatchingSignature)) {
            try verifier.verify(payload: Array(String(decoding: body, as: UTF8.self).utf8), signatureHeader: header, now: Self.date(1_700_000_001))
        }
    }

    @Test("The key is the whole secret string, whsec_ prefix included")
    func wholeSecretIsTheKey() throws {
        let body = Array("{}".utf8)
        let header = FakeStripe.signatureHeader(body: body, timestamp: 1_700_000_000, secret: "test_secret")
        #expect(throws: StripeError.webhook(.noMatchingSignature)) {
            try StripeWebhookVerifier(secret: "whsec_test_secret").verify(payload: body, signatureHeader: header, now: Self.date(1_700_000_000))
        }
    }

    @Test("A verified but malformed body is a decoding error, not a signature error")
    func verifiedButMalformed() throws {
        let body = Array("not json".utf8)
        let header = FakeStripe.signatureHeader(body: body, timestamp: 1_700_000_000, secret: "whsec_x")
        #expect {
            _ = try StripeWebhookVerifier(secret: "whsec_x").verifiedEvent(payload: body, signatureHeader: header, now: Self.date(1_700_000_000))
        } throws: { ($0 as? StripeError)?.decodingError != nil }
    }
}
