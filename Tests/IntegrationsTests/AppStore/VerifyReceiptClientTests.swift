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
            credentials: .init(issuerID: "i", keyID: "k", bundleID: AppStoreTests.bundleID,
                               publicKey: try SigningKey.generateES256().verificationKey()),
            sharedSecret: secret)
    }

    static func client(_ fake: FakeAppStoreServer, secret: String = secret, first: AppStoreEnvironment = .production) -> VerifyReceiptClient {
        VerifyReceiptClient(sharedSecret: secret, productionURL: fake.productionReceiptURL, sandboxURL: fake.sandboxReceiptURL,
                            bundleID: AppStoreTests.bundleID, http: URLSessionHTTPClient(service: "app_store"), firstEnvironment: first)
    }

    static func valid(_ environment: String, _ purchases: [FakeAppStoreServer.ReceiptPurchase], bundleID: String = AppStoreTests.bundleID)
        -> FakeAppStoreServer.ReceiptAnswer {
        .valid(bundleID: bundleID, environment: environment, purchases: purchases, requestDate: requestDate)
    }

    @Test("Status 0: the newest purchase, sent with the shared secret and exclude-old-transactions")
    func valid() async throws {
        let fake = try Self.server()
        defer { Task { await fake.stop() } }
        let expires = Self.requestDate.addingTimeInterval(30 * 86400)
        fake.addReceipt("MIIreceipt1", environment: .production, answer: Self.valid("Production", [
            .init(productID: "com.example.monthly", transactionID: "11", originalTransactionID: "10",
                  purchaseDate: Self.requestDate.addingTimeInterval(-40 * 86400), expiresDate: Self.requestDate.addingTimeInterval(-10 * 86400)),
            .init(productID: "com.example.yearly", transactionID: "21", originalTransactionID: "20",
                  purchaseDate: Self.requestDate.addingTimeInterval(-86400), expiresDate: expires),
        ]))
        let receipt = try await Self.client(fake).verify(receiptBase64: "MIIreceipt1\n")
        #expect(receipt.productID == "com.example.yearly")
        #expect(receipt.originalTransactionID == "20")
        #expect(receipt.transactionID == "21")
        #expect(receipt.expiresDate == expires)
        #expect(receipt.environment == "Production")
        #expect(receipt.autoRenewStatus == 1)
        let snapshot = receipt.snapshot(now: Self.requestDate)
        #expect(snapshot == PurchaseSnapshot(platform: .appStore, externalID: "20", productID: "com.example.yearly", status: .active,
                                             expiresAt: expires, environment: "Production", observedAt: Self.requestDate, transactionID: "21"))
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
        fake.addReceipt("MIIsandbox", environment: .sandbox, answer: Self.valid("Sandbox", [.init(autoRenewStatus: 0, isInBillingRetryPeriod: false)]))
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
            guard let error = error as? VerifyReceiptError else { return false }
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
        } throws: { error in (error as? VerifyReceiptError)?.status == 21004 }
        await #expect {
            _ = try await Self.client(fake).verify(receiptBase64: "MIIunknown")
        } throws: { error in (error as? VerifyReceiptError)?.status == 21002 }
        await #expect(throws: VerifyReceiptError.self) { _ = try await Self.client(fake).verify(receiptBase64: "  ") }
    }

    @Test("A valid receipt of another app is refused")
    func wrongBundle() async throws {
        let fake = try Self.server()
        defer { Task { await fake.stop() } }
        fake.addReceipt("MIIother", environment: .production, answer: Self.valid("Production", [.init()], bundleID: "com.other.app"))
        await #expect {
            _ = try await Self.client(fake).verify(receiptBase64: "MIIother")
        } throws: { error in (error as? VerifyReceiptError)?.kind == .wrongBundleID }
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
            (.init(productID: "com.example.lifetime", expiresDate: nil, autoRenewStatus: nil), .active),
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
            request.path.hasPrefix("/down") ? HTTPResponse(status: .serviceUnavailable) : HTTPResponse(status: .ok, contentType: "text/html", body: "<html>")
        }
        defer { Task { await fake.stop() } }
        let base = try #require(URL(string: fake.baseURL))
        func client(_ path: String) -> VerifyReceiptClient {
            let url = base.appendingPathComponent(path)
            return VerifyReceiptClient(sharedSecret: nil, productionURL: url, sandboxURL: url, bundleID: AppStoreTests.bundleID,
                                       http: URLSessionHTTPClient(service: "app_store"))
        }
        await #expect { _ = try await client("down").verify(receiptBase64: "MII") } throws: { error in
            (error as? UpstreamError).map { $0.retryable && $0.kind == .badStatus(503) } ?? false
        }
        await #expect { _ = try await client("garbage").verify(receiptBase64: "MII") } throws: { error in
            (error as? UpstreamError)?.kind == .invalidResponse
        }
    }
}
