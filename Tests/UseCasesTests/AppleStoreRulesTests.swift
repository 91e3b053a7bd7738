import Crypto
import Domain
import Foundation
import Integrations
import Logging
import Testing
import TestSupport
import UseCases

/// The App Store rules of the purchase use cases, with the store clients talking to the fake
/// App Store and no Tollgate HTTP: a subscription's present state, every purchase of a receipt,
/// durations, notifications that are not ours, refunds and their reversal.
@Suite("App Store rules of the store use cases")
struct AppleStoreRulesTests {
    static let bundleID = "com.example.app"

    /// A bench, the fake App Store and the store clients of a deployment of `environment`.
    struct Stores {
        let bench: UseCaseBench
        let pki: FakeApplePKI
        let apple: FakeAppStoreServer
        let verifier: AppStoreSignedDataVerifier
        let purchases: StorePurchaseVerifier
        /// The App Store Server API client, on the fake.
        let api: AppStoreServerAPIClient

        init(environment: AppStoreEnvironment = .sandbox, durations: [String: Int] = [:]) async throws {
            let bench = try UseCaseBench()
            self.bench = bench
            pki = try await FakeApplePKI.shared()
            let key = try SigningKey.generateES256()
            apple = try FakeAppStoreServer(
                credentials: .init(
                    issuerID: "issuer", keyID: "KEY123", bundleID: AppleStoreRulesTests.bundleID, publicKey: try key.verificationKey()),
                sharedSecret: "shared-secret", clock: bench.nowFunction)
            verifier = AppStoreSignedDataVerifier(
                trustedRoots: [pki.root], bundleID: AppleStoreRulesTests.bundleID, appAppleID: nil, environment: environment)
            let api = AppStoreServerAPIClient(
                issuerID: "issuer", keyID: "KEY123", privateKey: key, bundleID: AppleStoreRulesTests.bundleID,
                productionBaseURL: apple.productionBaseURL, sandboxBaseURL: apple.sandboxBaseURL,
                http: URLSessionHTTPClient(service: "app_store"), verifier: verifier, clock: bench.nowFunction)
            self.api = api
            let receipts = VerifyReceiptClient(
                sharedSecret: "shared-secret", productionURL: apple.productionReceiptURL, sandboxURL: apple.sandboxReceiptURL,
                bundleID: AppleStoreRulesTests.bundleID, http: URLSessionHTTPClient(service: "app_store"))
            purchases = StorePurchaseVerifier(
                stores: StoreClients(appleVerifier: verifier, appStoreAPI: api, verifyReceipt: receipts, googlePlay: nil),
                stripe: nil, database: bench.database, now: bench.nowFunction, durations: ProductDurations(days: durations))
        }

        var notifications: ApplyAppleNotification {
            ApplyAppleNotification(verifier: verifier, database: bench.database, logger: .disabled)
        }

        func purchase(_ reference: String) throws -> Purchase? {
            try bench.database.readSync { try PurchaseRepository.find(platform: .appStore, reference: reference, on: $0) }
        }

        func stop() async { await apple.stop() }
    }

    @Test("A subscription named by its original id is its present state (latest period), not its first; a non-consumable keeps Get Transaction Info")
    func presentState() async throws {
        let stores = try await Stores()
        defer { Task { await stores.stop() } }
        let now = stores.bench.now
        let periods = try stores.apple.addSubscription(
            originalTransactionID: "2000000000007000", bundleID: Self.bundleID, start: now.addingTimeInterval(-290 * 86400), periods: 10,
            environment: .sandbox, signer: stores.pki.signer())
        let latestEnd = try #require(periods.last?.expiresDate)
        for verified in [
            try await stores.purchases.appStore(transactionID: "2000000000007000"),
            try await stores.purchases.appStore(transactionID: periods[3].transactionID),
            try await stores.purchases.appStoreSubscription(originalTransactionID: "2000000000007000")
        ] {
            #expect(verified.snapshot.externalID == "2000000000007000")
            #expect(verified.snapshot.status == .active)
            #expect(verified.snapshot.expiresAt == latestEnd)
            #expect(verified.snapshot.transactionID == periods.last?.transactionID)
            #expect(verified.snapshot.observedAt == now, "observedAt is when Apple signed the answer")
            #expect(verified.alongside.isEmpty)
        }
        try stores.apple.addTransaction(
            FakeAppStoreTransaction(
                transactionID: "2000000000007100", originalTransactionID: "2000000000007100", bundleID: Self.bundleID,
                productID: "com.example.lifetime", purchaseDate: now.addingTimeInterval(-400 * 86400), type: "Non-Consumable"),
            signer: stores.pki.signer(), environment: .sandbox)
        let lifetime = try await stores.purchases.appStore(transactionID: "2000000000007100")
        #expect(lifetime.snapshot.status == .active)
        #expect(lifetime.snapshot.expiresAt == nil)
        await #expect {
            _ = try await stores.purchases.appStoreSubscription(originalTransactionID: "2000000000007100")
        } throws: { error in
            (error as? UseCaseError)?.code == "invalid_receipt"
        }
    }

    @Test("A receipt vouches for every purchase in it: all are recorded and linked to the account in one transaction")
    func everyPurchaseOfAReceipt() async throws {
        let stores = try await Stores(durations: ["com.example.pass": 30])
        defer { Task { await stores.stop() } }
        let now = stores.bench.now
        let current = FakeAppStoreServer.ReceiptPurchase(
            productID: "com.example.monthly", transactionID: "3000000000000102", originalTransactionID: "3000000000000100",
            purchaseDate: now.addingTimeInterval(-5 * 86400), expiresDate: now.addingTimeInterval(25 * 86400))
        let lifetime = FakeAppStoreServer.ReceiptPurchase(
            productID: "com.example.lifetime", transactionID: "3000000000000200", originalTransactionID: "3000000000000200",
            purchaseDate: now.addingTimeInterval(-400 * 86400), autoRenewStatus: nil)
        let pass = FakeAppStoreServer.ReceiptPurchase(
            productID: "com.example.pass", transactionID: "3000000000000300", originalTransactionID: "3000000000000300",
            purchaseDate: now.addingTimeInterval(-40 * 86400), autoRenewStatus: nil)
        stores.apple.addReceipt(
            "MIIUSECASE", environment: .production,
            answer: .receipt(
                bundleID: Self.bundleID, environment: "Production", latestReceiptInfo: [current], inApp: [lifetime, pass, current], requestDate: now))

        let verified = try await stores.purchases.appStore(receiptBase64: "MIIUSECASE")
        #expect(verified.snapshots.map(\.externalID) == ["3000000000000100", "3000000000000300", "3000000000000200"])
        let passSnapshot = try #require(verified.alongside.first { $0.productID == "com.example.pass" })
        #expect(passSnapshot.expiresAt == pass.purchaseDate.addingTimeInterval(30 * 86400), "products_duration_days applies on the receipt path")
        #expect(passSnapshot.status == .expired)

        let record = RecordReceipt(
            verifier: stores.purchases, policy: .reject, secrets: stores.bench.secrets,
            catalog: EntitlementCatalog(["premium": ["com.example.monthly"], "lifetime": ["com.example.lifetime"]]),
            vouching: StripeVouching(prices: []))
        let recorded = try await record.record(.appStoreReceipt("MIIUSECASE", productID: nil), userID: "app-user-1", attribution: nil, now: now)
        #expect(recorded.purchase.externalID == "3000000000000100")
        for reference in ["3000000000000100", "3000000000000200", "3000000000000300"] {
            #expect(try stores.purchase(reference)?.accountID == recorded.accountID, "\(reference)")
        }
        #expect(Set(recorded.entitlements.filter(\.active).map(\.id)) == ["premium", "lifetime"])
    }

    @Test(
        "A StoreKit 1 transaction id picks its purchase from the receipt (any period's id finds the newest state); one the receipt lacks is invalid_receipt"
    )
    func receiptTransaction() async throws {
        let stores = try await Stores()
        defer { Task { await stores.stop() } }
        let now = stores.bench.now
        let first = FakeAppStoreServer.ReceiptPurchase(
            productID: "com.example.monthly", transactionID: "3000000000000400", originalTransactionID: "3000000000000400",
            purchaseDate: now.addingTimeInterval(-35 * 86400), expiresDate: now.addingTimeInterval(-5 * 86400))
        let current = FakeAppStoreServer.ReceiptPurchase(
            productID: "com.example.monthly", transactionID: "3000000000000401", originalTransactionID: "3000000000000400",
            purchaseDate: now.addingTimeInterval(-5 * 86400), expiresDate: now.addingTimeInterval(25 * 86400))
        let lifetime = FakeAppStoreServer.ReceiptPurchase(
            productID: "com.example.lifetime", transactionID: "3000000000000500", originalTransactionID: "3000000000000500",
            purchaseDate: now.addingTimeInterval(-3600), autoRenewStatus: nil)
        stores.apple.addReceipt(
            "MIIUSECASE1", environment: .production,
            answer: .receipt(
                bundleID: Self.bundleID, environment: "Production", latestReceiptInfo: [current], inApp: [first, current, lifetime], requestDate: now)
        )

        let verified = try await stores.purchases.appStore(receiptBase64: "MIIUSECASE1", transactionID: "3000000000000400")
        #expect(verified.snapshot.externalID == "3000000000000400")
        #expect(verified.snapshot.expiresAt == current.expiresDate && verified.snapshot.status == .active)
        #expect(verified.alongside.map(\.externalID) == ["3000000000000500"])
        let byLifetime = try await stores.purchases.appStore(receiptBase64: "MIIUSECASE1", transactionID: "3000000000000500")
        #expect(byLifetime.snapshot.productID == "com.example.lifetime")
        await #expect(throws: UseCaseError.self) {
            _ = try await stores.purchases.appStore(receiptBase64: "MIIUSECASE1", transactionID: "3000000000000999")
        }
    }

    @Test("A notification that verifies but is another environment's or app's, or version 1, is ignored; one that does not verify is refused")
    func notOurs() async throws {
        let stores = try await Stores()
        defer { Task { await stores.stop() } }
        let now = stores.bench.now
        func subscribed(environment: String = "Sandbox", bundleID: String = Self.bundleID) -> FakeAppStoreNotification {
            FakeAppStoreNotification(
                notificationType: "SUBSCRIBED", signedDate: now, environment: environment, bundleID: bundleID,
                transaction: FakeAppStoreTransaction(
                    originalTransactionID: "2000000000007500", bundleID: bundleID,
                    expiresDate: now.addingTimeInterval(86400), environment: environment, signedDate: now))
        }
        for notification in [subscribed(environment: "Production"), subscribed(bundleID: "com.other.app")] {
            let payload = try stores.pki.signer().signNotification(notification)
            #expect(try await stores.notifications.apply(signedPayload: payload, now: now) == .ignored)
        }
        #expect(stores.notifications.acknowledgeVersion1(notificationType: "DID_RENEW") == .ignored)
        await #expect {
            _ = try await stores.notifications.apply(signedPayload: try stores.pki.signer(.leafWithoutOID).signNotification(subscribed()), now: now)
        } throws: { error in
            (error as? UseCaseError)?.code == "bad_request"
        }
        #expect(try stores.bench.database.readSync { try $0.queryOne("SELECT COUNT(*) AS n FROM webhook_events")?.int("n") } == 0)
        #expect(try stores.purchase("2000000000007500") == nil)
        #expect(try await stores.notifications.apply(signedPayload: try stores.pki.signer().signNotification(subscribed()), now: now) == .applied)
    }

    @Test("REFUND ends access and REFUND_REVERSED restores it, each dated by the notification's signedDate")
    func refundAndReversal() async throws {
        let stores = try await Stores()
        defer { Task { await stores.stop() } }
        let bought = stores.bench.now
        let end = bought.addingTimeInterval(30 * 86400)
        func notification(_ type: String, at date: Date, revoked: Date? = nil) throws -> String {
            try stores.pki.signer().signNotification(
                FakeAppStoreNotification(
                    notificationType: type, signedDate: date,
                    transaction: FakeAppStoreTransaction(
                        originalTransactionID: "2000000000007600", bundleID: Self.bundleID, purchaseDate: bought, expiresDate: end,
                        revocationDate: revoked, revocationReason: revoked == nil ? nil : 1, signedDate: date)))
        }
        _ = try await stores.notifications.apply(signedPayload: try notification("SUBSCRIBED", at: bought), now: bought)
        let refundedAt = bought.addingTimeInterval(2 * 86400)
        _ = try await stores.notifications.apply(
            signedPayload: try notification("REFUND", at: refundedAt, revoked: refundedAt.addingTimeInterval(-30)), now: refundedAt)
        var purchase = try #require(try stores.purchase("2000000000007600"))
        #expect(purchase.status == .refunded)
        #expect(!purchase.isEntitled(at: refundedAt))
        #expect(purchase.observedAt == refundedAt)
        let reversedAt = refundedAt.addingTimeInterval(86400)
        _ = try await stores.notifications.apply(signedPayload: try notification("REFUND_REVERSED", at: reversedAt), now: reversedAt)
        purchase = try #require(try stores.purchase("2000000000007600"))
        #expect(purchase.status == .active)
        #expect(purchase.isEntitled(at: reversedAt))
        #expect(purchase.observedAt == reversedAt, "the change time, never the purchase date")
        // A late copy of the refund (older signedDate) does not undo the reversal.
        _ = try await stores.notifications.apply(
            signedPayload: try notification("REFUND", at: refundedAt.addingTimeInterval(1), revoked: refundedAt), now: reversedAt)
        #expect(try stores.purchase("2000000000007600")?.status == .active)
    }
}

extension AppleStoreRulesTests {
    @Test("A consumable gets products_duration_days on the API and JWS paths when its product has one; without one it is left as Apple says")
    func consumableDurations() async throws {
        let stores = try await Stores(durations: ["com.example.daypass": 1])
        defer { Task { await stores.stop() } }
        let now = stores.bench.now
        func consumable(_ id: String, product: String, boughtAgo: TimeInterval) -> FakeAppStoreTransaction {
            FakeAppStoreTransaction(
                transactionID: id, originalTransactionID: id, bundleID: Self.bundleID, productID: product,
                purchaseDate: now.addingTimeInterval(-boughtAgo), type: "Consumable")
        }
        let fresh = consumable("2000000000008100", product: "com.example.daypass", boughtAgo: 3600)
        let stale = consumable("2000000000008200", product: "com.example.daypass", boughtAgo: 2 * 86400)
        let coins = consumable("2000000000008300", product: "com.example.coins", boughtAgo: 3600)
        for transaction in [fresh, stale, coins] {
            try stores.apple.addTransaction(transaction, signer: stores.pki.signer(), environment: .sandbox)
        }
        let viaAPI = try await stores.purchases.appStore(transactionID: "2000000000008100")
        #expect(viaAPI.snapshot.status == .active)
        #expect(viaAPI.snapshot.expiresAt == fresh.purchaseDate.addingTimeInterval(86400))
        let signed = try stores.pki.signer().signTransaction(stale)
        let viaJWS = try await stores.purchases.appStore(signedTransaction: signed)
        #expect(viaJWS.snapshot.status == .expired, "a day pass bought two days ago is over")
        #expect(viaJWS.snapshot.expiresAt == stale.purchaseDate.addingTimeInterval(86400))
        let unconfigured = try await stores.purchases.appStore(transactionID: "2000000000008300")
        #expect(unconfigured.snapshot.status == .active)
        #expect(unconfigured.snapshot.expiresAt == nil, "no duration configured: not refused, left as Apple says")
    }
}
