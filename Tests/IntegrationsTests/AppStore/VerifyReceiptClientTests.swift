import Crypto
import Domain
import Foundation
import HTTPCore
import HTTPRouting
import Integrations
import Testing
import TestSupport

@Suite("verifyReceipt client")
struct VerifyReceiptClientTests {
    static let secret = "0123456789abcdef0123456789abcdef"
    static let requestDate = Date(timeIntervalSince1970: 1_700_000_000)

    static func server() throws -> FakeAppStoreServer {
        try FakeAppStoreServer(
            credentials: .init(
                issuerID: "i", keyID: "k", bundleID: AppStoreTests.bundleID,
                publicKey: try SigningKey.generateES256().verificationKey()),
            sharedSecret: secret)
    }

    static func client(_ fake: FakeAppStoreServer, secret: String = secret, first: AppStoreEnvironment = .production) -> VerifyReceiptClient {
        VerifyReceiptClient(
            sharedSecret: secret, productionURL: fake.productionReceiptURL, sandboxURL: fake.sandboxReceiptURL,
            bundleID: AppStoreTests.bundleID, http: URLSessionHTTPClient(service: "app_store"), firstEnvironment: first)
    }

    static func valid(_ environment: String, _ purchases: [FakeAppStoreServer.ReceiptPurchase], bundleID: String = AppStoreTests.bundleID)
        -> FakeAppStoreServer.ReceiptAnswer
    {
        .valid(bundleID: bundleID, environment: environment, purchases: purchases, requestDate: requestDate)
    }

    @Test("Status 0: the newest purchase, sent with the shared secret and exclude-old-transactions")
    func valid() async throws {
        let fake = try Self.server()
        defer { Task { await fake.stop() } }
        let expires = Self.requestDate.addingTimeInterval(30 * 86400)
        fake.addReceipt(
            "MIIreceipt1", environment: .production,
            answer: Self.valid(
                "Production",
                [
                    .init(
                        productID: "com.example.monthly", transactionID: "11", originalTransactionID: "10",
                        purchaseDate: Self.requestDate.addingTimeInterval(-40 * 86400), expiresDate: Self.requestDate.addingTimeInterval(-10 * 86400)),
                    .init(
                        productID: "com.example.yearly", transactionID: "21", originalTransactionID: "20",
                        purchaseDate: Self.requestDate.addingTimeInterval(-86400), expiresDate: expires)
                ]))
        let receipt = try await Self.client(fake).verify(receiptBase64: "MIIreceipt1\n")
        #expect(receipt.productID == "com.example.yearly")
        #expect(receipt.originalTransactionID == "20")
        #expect(receipt.transactionID == "21")
        #expect(receipt.expiresDate == expires)
        #expect(receipt.environment == "Production")
        #expect(receipt.autoRenewStatus == 1)
        let snapshot = receipt.snapshot(now: Self.requestDate)
        var expected = PurchaseSnapshot(
            platform: .appStore, externalID: "20", productID: "com.example.yearly", status: .active,
            expiresAt: expires, environment: "Production", observedAt: Self.requestDate, transactionID: "21")
        expected.willRenew = true
        #expect(snapshot == expected)
        let sent = try #require(fake.receiptRequests.first)
        #expect(fake.receiptRequests.count == 1)
        #expect(sent.environment == .production)
        #expect(sent.body["receipt-data"] == "MIIreceipt1")
        #expect(sent.body["password"] == Self.secret)
        #expect(sent.excludeOldTransactions == true)
        #expect(fake.requests.first?.headers["Content-Type"] == "application/json")
    }

    @Test("21007: a sandbox receipt sent to production is retried against the sandbox")
    func sandboxRetry() async throws {
        let fake = try Self.server()
        defer { Task { await fake.stop() } }
        fake.addReceipt(
            "MIIsandbox", environment: .sandbox, answer: Self.valid("Sandbox", [.init(autoRenewStatus: 0, isInBillingRetryPeriod: false)]))
        let receipt = try await Self.client(fake).verify(receiptBase64: "MIIsandbox")
        #expect(receipt.environment == "Sandbox")
        #expect(fake.receiptRequests.map(\.environment) == [.production, .sandbox])
        #expect(receipt.snapshot(now: Self.requestDate).status == .active)
    }

    @Test("21008: a production receipt sent to the sandbox is retried against production")
    func productionRetry() async throws {
        let fake = try Self.server()
        defer { Task { await fake.stop() } }
        fake.addReceipt("MIIprod", environment: .production, answer: Self.valid("Production", [.init()]))
        let receipt = try await Self.client(fake, first: .sandbox).verify(receiptBase64: "MIIprod")
        #expect(receipt.environment == "Production")
        #expect(fake.receiptRequests.map(\.environment) == [.sandbox, .production])
    }

    @Test("21005, 21009 and 21100–21199 are retryable upstream errors", arguments: [21005, 21009, 21100, 21150, 21199])
    func retryable(_ status: Int) async throws {
        let fake = try Self.server()
        defer { Task { await fake.stop() } }
        fake.addReceipt("MIIbusy", environment: .production, answer: .status(status))
        await #expect {
            _ = try await Self.client(fake).verify(receiptBase64: "MIIbusy")
        } throws: { error in
            (error as? UpstreamError).map { $0.retryable && $0.service == "app_store" } ?? false
        }
    }

    @Test("21002, 21003, 21004 and 21010 are invalid receipts", arguments: [21002, 21003, 21004, 21010])
    func invalid(_ status: Int) async throws {
        let fake = try Self.server()
        defer { Task { await fake.stop() } }
        fake.addReceipt("MIIbad", environment: .production, answer: .status(status))
        await #expect {
            _ = try await Self.client(fake).verify(receiptBase64: "MIIbad")
        } throws: { error in
            guard let error = (error as? AppStoreError)?.receiptError else { return false }
            return error.kind == .invalidReceipt && error.status == status && !error.message.contains(Self.secret)
        }
    }

    @Test("A wrong shared secret (21004 from the store) and an unknown receipt (21002) are invalid receipts")
    func storeDecidedInvalid() async throws {
        let fake = try Self.server()
        defer { Task { await fake.stop() } }
        fake.addReceipt("MIIok", environment: .production, answer: Self.valid("Production", [.init()]))
        await #expect {
            _ = try await Self.client(fake, secret: "wrong").verify(receiptBase64: "MIIok")
        } throws: { error in (error as? AppStoreError)?.receiptError?.status == 21004 }
        await #expect {
            _ = try await Self.client(fake).verify(receiptBase64: "MIIunknown")
        } throws: { error in (error as? AppStoreError)?.receiptError?.status == 21002 }
        await #expect { _ = try await Self.client(fake).verify(receiptBase64: "  ") } throws: { ($0 as? AppStoreError)?.receiptError != nil }
    }

    @Test("A valid receipt of another app is refused")
    func wrongBundle() async throws {
        let fake = try Self.server()
        defer { Task { await fake.stop() } }
        fake.addReceipt("MIIother", environment: .production, answer: Self.valid("Production", [.init()], bundleID: "com.other.app"))
        await #expect {
            _ = try await Self.client(fake).verify(receiptBase64: "MIIother")
        } throws: { error in (error as? AppStoreError)?.receiptError?.kind == .wrongBundleID }
    }

    @Test("Snapshots: cancellation, expiry, renewal turned off, trial, no expiry")
    func snapshots() async throws {
        let fake = try Self.server()
        defer { Task { await fake.stop() } }
        let now = Self.requestDate
        let cases: [(FakeAppStoreServer.ReceiptPurchase, PurchaseStatus)] = [
            (.init(expiresDate: now.addingTimeInterval(86400), cancellationDate: now.addingTimeInterval(-60)), .refunded),
            (.init(expiresDate: now.addingTimeInterval(-86400)), .expired),
            (.init(expiresDate: now.addingTimeInterval(-86400), isInBillingRetryPeriod: true), .billingRetry),
            (.init(expiresDate: now.addingTimeInterval(86400), autoRenewStatus: 0), .canceled),
            (.init(expiresDate: now.addingTimeInterval(86400), isTrialPeriod: true), .trialing),
            (.init(productID: "com.example.lifetime", expiresDate: nil, autoRenewStatus: nil), .active)
        ]
        for (index, (purchase, expected)) in cases.enumerated() {
            fake.addReceipt("MIIcase\(index)", environment: .production, answer: Self.valid("Production", [purchase]))
            let snapshot = try await Self.client(fake).verify(receiptBase64: "MIIcase\(index)").snapshot(now: now)
            #expect(snapshot.status == expected, "case \(index)")
            #expect(snapshot.expiresAt == purchase.expiresDate, "case \(index)")
        }
    }

    @Test("HTTP errors and garbage from verifyReceipt are upstream errors")
    func httpErrors() async throws {
        let fake = try FakeHTTPServer { request in
            request.path.hasPrefix("/down")
                ? HTTPResponse(status: .serviceUnavailable) : HTTPResponse(status: .ok, contentType: "text/html", body: "<html>")
        }
        defer { Task { await fake.stop() } }
        let base = try #require(URL(string: fake.baseURL))
        func client(_ path: String) -> VerifyReceiptClient {
            let url = base.appendingPathComponent(path)
            return VerifyReceiptClient(
                sharedSecret: nil, productionURL: url, sandboxURL: url, bundleID: AppStoreTests.bundleID,
                http: URLSessionHTTPClient(service: "app_store"))
        }
        await #expect { _ = try await client("down").verify(receiptBase64: "MII") } throws: { error in
            (error as? UpstreamError).map { $0.retryable && $0.kind == .badStatus(503) } ?? false
        }
        await #expect { _ = try await client("garbage").verify(receiptBase64: "MII") } throws: { error in
            (error as? UpstreamError)?.kind == .invalidResponse
        }
    }

    @Test("Every purchase of a receipt: grouped by original_transaction_id over latest_receipt_info and in_app, newest item and renewal info each")
    func everyPurchase() async throws {
        let fake = try Self.server()
        defer { Task { await fake.stop() } }
        let now = Self.requestDate
        let day: TimeInterval = 86400
        let subscriptionStart = now.addingTimeInterval(-65 * day)
        let period3 = FakeAppStoreServer.ReceiptPurchase(
            productID: "com.example.monthly", transactionID: "103", originalTransactionID: "100", purchaseDate: now.addingTimeInterval(-5 * day),
            expiresDate: now.addingTimeInterval(25 * day), originalPurchaseDate: subscriptionStart, autoRenewProductID: "com.example.basic")
        var periods: [FakeAppStoreServer.ReceiptPurchase] = []
        for index in 0..<2 {
            let start: Date = subscriptionStart.addingTimeInterval(Double(index) * 30 * day)
            let end: Date = start.addingTimeInterval(30 * day)
            periods.append(
                FakeAppStoreServer.ReceiptPurchase(
                    productID: "com.example.monthly", transactionID: String(101 + index), originalTransactionID: "100",
                    purchaseDate: start, expiresDate: end, originalPurchaseDate: subscriptionStart))
        }
        let lifetime = FakeAppStoreServer.ReceiptPurchase(
            productID: "com.example.lifetime", transactionID: "200", originalTransactionID: "200", purchaseDate: now.addingTimeInterval(-400 * day),
            autoRenewStatus: nil)
        let pass = FakeAppStoreServer.ReceiptPurchase(
            productID: "com.example.pass", transactionID: "300", originalTransactionID: "300", purchaseDate: now.addingTimeInterval(-10 * day),
            autoRenewStatus: nil)
        // exclude-old-transactions: latest_receipt_info holds the subscription's latest period; in_app
        // everything the receipt was made with (a year-old non-consumable, a non-renewing pass, old periods).
        fake.addReceipt(
            "MIIall", environment: .production,
            answer: .receipt(
                bundleID: AppStoreTests.bundleID, environment: "Production", latestReceiptInfo: [period3],
                inApp: [lifetime] + periods + [pass], requestDate: now))
        let receipt = try await Self.client(fake).verify(receiptBase64: "MIIall")
        #expect(receipt.allPurchases.map(\.originalTransactionID) == ["100", "300", "200"], "newest first")
        #expect(receipt.transactionID == "103")
        #expect(receipt.expiresDate == period3.expiresDate)
        let durations = ProductDurations(days: ["com.example.pass": 30])
        let snapshots = receipt.allPurchases.map { $0.snapshot(now: now, durations: durations) }
        #expect(snapshots[0].status == .active)
        #expect(snapshots[0].willRenew == true)
        #expect(snapshots[0].renewsToProductID == "com.example.basic")
        #expect(snapshots[1].productID == "com.example.pass")
        #expect(snapshots[1].status == .active)
        #expect(snapshots[1].expiresAt == pass.purchaseDate.addingTimeInterval(30 * day))
        #expect(snapshots[2].productID == "com.example.lifetime")
        #expect(snapshots[2].status == .active)
        #expect(snapshots[2].expiresAt == nil)
        #expect(snapshots[2].willRenew == nil)
    }

    @Test("products_duration_days on an item with no expires_date_ms: purchase date + days, expired once past; others never expire")
    func durations() {
        let now = Self.requestDate
        let durations = ProductDurations(days: ["com.example.pass": 30])
        func item(_ product: String, boughtDaysAgo days: Double) -> VerifiedReceipt {
            VerifiedReceipt(
                environment: "Production", bundleID: AppStoreTests.bundleID, productID: product, originalTransactionID: "1",
                purchaseDate: now.addingTimeInterval(-days * 86400), requestDate: now)
        }
        let running = item("com.example.pass", boughtDaysAgo: 10).snapshot(now: now, durations: durations)
        #expect(running.status == .active)
        #expect(running.expiresAt == now.addingTimeInterval(20 * 86400))
        let past = item("com.example.pass", boughtDaysAgo: 40).snapshot(now: now, durations: durations)
        #expect(past.status == .expired)
        #expect(past.expiresAt == now.addingTimeInterval(-10 * 86400))
        let lifetime = item("com.example.lifetime", boughtDaysAgo: 400).snapshot(now: now, durations: durations)
        #expect(lifetime.status == .active)
        #expect(lifetime.expiresAt == nil)
    }
}
