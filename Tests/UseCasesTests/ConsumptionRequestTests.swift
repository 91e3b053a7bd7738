import Domain
import Foundation
import Integrations
import Storage
import Testing
import TestSupport
import UseCases

/// Refund requests to Apple without Tollgate's HTTP: a `CONSUMPTION_REQUEST` queues one answer in
/// its notification's transaction; the worker sends it once to the fake App Store (which checks
/// the body as Apple does), `DELIVERED` when the app claimed the purchase; off, nothing is queued.
@Suite("Refund requests to Apple")
struct ConsumptionRequestTests {
    typealias Stores = AppleStoreRulesTests.Stores

    static func request(_ stores: Stores, transactionID: String) throws -> String {
        let now = stores.bench.now
        return try stores.pki.signer().signNotification(
            FakeAppStoreNotification(
                notificationType: "CONSUMPTION_REQUEST", signedDate: now,
                transaction: FakeAppStoreTransaction(
                    transactionID: transactionID, originalTransactionID: transactionID, bundleID: AppleStoreRulesTests.bundleID,
                    expiresDate: now.addingTimeInterval(86_400), signedDate: now)))
    }

    static func known(_ stores: Stores, _ transactionID: String) throws {
        try stores.apple.addTransaction(
            FakeAppStoreTransaction(
                transactionID: transactionID, originalTransactionID: transactionID, bundleID: AppleStoreRulesTests.bundleID,
                expiresDate: stores.bench.now.addingTimeInterval(86_400)),
            signer: stores.pki.signer(), environment: .sandbox)
    }

    @Test(
        "Each request is answered once: UNDELIVERED_OTHER for a purchase the app never claimed, DELIVERED for a claimed one; a repeat sends nothing")
    func answeredOnce() async throws {
        let stores = try await Stores()
        defer { Task { await stores.stop() } }
        let bench = stores.bench
        try Self.known(stores, "2000000000009001")
        try Self.known(stores, "2000000000009002")
        // The app claimed 9002: its purchase is held by an account.
        try bench.heldPurchase(appUserID: "user-1", platform: .appStore, externalID: "2000000000009002", productID: "com.example.monthly")
        let now = bench.now
        let wakes = WakeCounter()
        let notifications = ApplyAppleNotification(
            verifier: stores.verifier, database: bench.database, logger: .disabled, answersConsumptionRequests: true,
            consumptionQueued: { wakes.count.wrappingAdd(1, ordering: .relaxed) })
        let first = try Self.request(stores, transactionID: "2000000000009001")
        #expect(try await notifications.apply(signedPayload: first, now: now) == .applied)
        #expect(try await notifications.apply(signedPayload: first, now: now) == .duplicate)
        #expect(try await notifications.apply(signedPayload: try Self.request(stores, transactionID: "2000000000009002"), now: now) == .applied)
        #expect(wakes.count.load(ordering: .relaxed) == 2)
        let worker = ConsumptionInformationWorker(
            database: bench.database, client: stores.api, sampleContentProvided: true, now: bench.nowFunction)
        #expect(await worker.sendDue() == 2)
        #expect(await worker.sendDue() == 0)
        let seen = stores.apple.consumptionRequests.sorted { $0.transactionID < $1.transactionID }
        #expect(seen.map(\.status) == [202, 202])
        #expect(seen.map { $0.fields["deliveryStatus"] } == ["UNDELIVERED_OTHER", "DELIVERED"])
        #expect(
            seen.allSatisfy {
                $0.fields == ["customerConsented": "true", "deliveryStatus": $0.fields["deliveryStatus"] ?? "", "sampleContentProvided": "true"]
            })
        #expect(
            try bench.database.readSync { try ConsumptionRequestQueue.statuses(on: $0) } == [
                "2000000000009001": "sent", "2000000000009002": "sent"
            ])
    }

    @Test("Off: the request is acknowledged and nothing is queued or sent")
    func off() async throws {
        let stores = try await Stores()
        defer { Task { await stores.stop() } }
        try Self.known(stores, "2000000000009003")
        let notifications = ApplyAppleNotification(verifier: stores.verifier, database: stores.bench.database, logger: .disabled)
        #expect(
            try await notifications.apply(signedPayload: try Self.request(stores, transactionID: "2000000000009003"), now: stores.bench.now)
                == .applied)
        let worker = ConsumptionInformationWorker(
            database: stores.bench.database, client: stores.api, sampleContentProvided: false, now: stores.bench.nowFunction)
        #expect(await worker.sendDue() == 0)
        #expect(stores.apple.consumptionRequests.isEmpty)
    }

    @Test("Apple unreachable: retried with backoff within the 12-hour window, then failed")
    func window() async throws {
        let stores = try await Stores()
        defer { Task { await stores.stop() } }
        let bench = stores.bench
        let notifications = ApplyAppleNotification(
            verifier: stores.verifier, database: bench.database, logger: .disabled, answersConsumptionRequests: true)
        _ = try await notifications.apply(signedPayload: try Self.request(stores, transactionID: "2000000000009004"), now: bench.now)
        let worker = ConsumptionInformationWorker(database: bench.database, client: nil, sampleContentProvided: false, now: bench.nowFunction)
        #expect(await worker.sendDue() == 1)
        #expect(try bench.database.readSync { try ConsumptionRequestQueue.statuses(on: $0) } == ["2000000000009004": "pending"])
        bench.advance(12 * 3600 + 1)
        #expect(await worker.sendDue() == 1)
        #expect(try bench.database.readSync { try ConsumptionRequestQueue.statuses(on: $0) } == ["2000000000009004": "failed"])
    }
}
