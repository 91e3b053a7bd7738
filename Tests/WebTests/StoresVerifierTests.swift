import Domain
import Foundation
import HTTPCore
import HTTPRouting
import Testing
import TestSupport
import UseCases

@testable import Web
@testable import App

@Suite("StorePurchaseVerifier (used by the in-app purchase endpoints)")
struct StoresVerifierTests {
    func apiError(_ body: () async throws -> VerifiedStorePurchase) async -> APIError? {
        do {
            _ = try await body()
            return nil
        } catch {
            return APIError.mapping(error)
        }
    }

    @Test("A signed transaction verifies; a Production deployment takes a Sandbox one as Sandbox; another app's is 422")
    func signedTransaction() async throws {
        let harness = try await StoresHarness(appleEnvironment: "Production")
        defer { Task { await harness.stop() } }
        let verifier = try harness.app.app.useCases.storeVerifier
        let now = harness.clock.now
        let production = try harness.pki.signer().signTransaction(
            harness.transaction("2000000000000501", expires: now.addingTimeInterval(3600), signedAt: now, environment: "Production"))
        let verified = try await verifier.appStore(signedTransaction: production)
        #expect(verified.snapshot.externalID == "2000000000000501")
        #expect(verified.snapshot.status == .active)
        #expect(verified.acknowledgement == nil)
        let sandbox = try harness.pki.signer().signTransaction(
            harness.transaction("2000000000000502", expires: now.addingTimeInterval(3600), signedAt: now, environment: "Sandbox"))
        #expect(try await verifier.appStore(signedTransaction: sandbox).snapshot.environment == "Sandbox")
        var other = harness.transaction("2000000000000503", expires: now.addingTimeInterval(3600), signedAt: now, environment: "Production")
        other.bundleID = "com.other.app"
        let refused = await apiError { try await verifier.appStore(signedTransaction: try harness.pki.signer().signTransaction(other)) }
        #expect(refused?.status == .unprocessableContent)
        #expect(refused?.code == "invalid_receipt")
        let forged = await apiError { try await verifier.appStore(signedTransaction: try harness.pki.signer(.leafWithoutOID).signTransaction(other)) }
        #expect(forged?.code == "invalid_receipt")
        #expect(await apiError { try await verifier.appStore(transactionID: "not-digits") }?.code == "invalid_receipt")
    }

    @Test("Play: a subscription token sent with another sku is 422 unprocessable; an unacknowledged purchase carries its acknowledgement")
    func play() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let verifier = try harness.app.app.useCases.storeVerifier
        harness.google.setSubscription(token: "tok-x", state: .active, productID: "pro_monthly", expiry: harness.clock.now.addingTimeInterval(3600))
        let verified = try await verifier.playStore(purchaseToken: "tok-x", productID: "pro_monthly")
        #expect(verified.acknowledgement == PlayAcknowledgement(kind: .subscription, productID: "pro_monthly", purchaseToken: "tok-x"))
        #expect(harness.google.acknowledgements.isEmpty, "verifying acknowledges nothing; recording does")
        #expect(await apiError { try await verifier.playStore(purchaseToken: "tok-x", productID: "coins_lifetime") }?.code == "unprocessable")
    }

    @Test("A store that is not configured is 503 naming its keys")
    func notConfigured() async throws {
        let app = try TestApp()
        let verifier = try app.app.useCases.storeVerifier
        let cases: [(() async throws -> VerifiedStorePurchase, String)] = [
            ({ try await verifier.appStore(signedTransaction: "a.b.c") }, "app.ios.bundle_id"),
            ({ try await verifier.appStore(transactionID: "1") }, "apple.api.private_key_path"),
            ({ try await verifier.appStore(receiptBase64: "MII") }, "apple.shared_secret"),
            ({ try await verifier.playStore(purchaseToken: "t", productID: "p") }, "google.service_account_path"),
            ({ try await verifier.stripe(subscriptionID: "sub_1") }, "stripe.secret_key")
        ]
        for (call, key) in cases {
            let error = await apiError(call)
            #expect(error?.status == .serviceUnavailable)
            #expect(error?.message.contains(key) == true, "\(error?.message ?? "")")
        }
    }
}
