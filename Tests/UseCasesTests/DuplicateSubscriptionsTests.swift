import Domain
import Foundation
import Storage
import Testing
import UseCases

/// "Paid twice" without HTTP: two active auto-renewing subscriptions of one account granting the
/// same entitlement, from any stores, the same one included, give one `purchase.duplicate` per
/// pair, and the console's list holds the pairs that are still both current.
@Suite("Paid twice")
struct DuplicateSubscriptionsTests {
    static let events = EventQueue(
        subscriptions: [EventSubscription(endpointID: "backend", types: ["purchase.duplicate"])],
        catalog: EntitlementCatalog(["premium": ["price_monthly", "com.example.monthly"], "pro": ["price_pro"]]))

    /// Applies a subscription snapshot and links it to `accountID`, reporting both as the use cases do.
    static func subscribe(
        _ bench: UseCaseBench, _ platform: Platform, _ externalID: String, product: String, accountID: String,
        status: PurchaseStatus = .active, willRenew: Bool? = true
    ) throws -> Purchase {
        let now = bench.now
        var snapshot = PurchaseSnapshot(
            platform: platform, externalID: externalID, productID: product, status: status, expiresAt: now.addingTimeInterval(30 * 86_400),
            observedAt: now)
        snapshot.willRenew = willRenew
        return try bench.database.writeSync { connection in
            let applied = try PurchaseRepository.apply(snapshot, on: connection, now: now)
            try events.purchaseApplied(applied, on: connection, now: now)
            if applied.purchase.accountID != accountID {
                try PurchaseRepository.link(purchaseID: applied.purchase.id, to: accountID, on: connection, now: now)
                try events.purchaseLinked(applied.purchase, to: accountID, on: connection, now: now)
            }
            return try PurchaseRepository.require(id: applied.purchase.id, on: connection)
        }
    }

    static func account(_ bench: UseCaseBench, _ appUserID: String) throws -> String {
        let now = bench.now
        return try bench.database.writeSync {
            try AccountRepository.findOrCreate(appUserID: appUserID, secrets: bench.secrets, on: $0, now: now).0.id
        }
    }

    /// The bodies of the `purchase.duplicate` events queued so far.
    static func duplicateEvents(_ bench: UseCaseBench) throws -> [[String: Any]] {
        try bench.database.readSync { connection in
            try connection.query("SELECT body FROM events WHERE type = 'purchase.duplicate' ORDER BY id").map {
                (try JSONSerialization.jsonObject(with: Data(try $0.string("body").utf8)) as? [String: Any]) ?? [:]
            }
        }
    }

    @Test("Two Stripe subscriptions, then an App Store one, for one entitlement: one event per pair, with both purchases; repeats add none")
    func onePerPair() async throws {
        let bench = try UseCaseBench()
        let account = try Self.account(bench, "user-1")
        let first = try Self.subscribe(bench, .stripe, "sub_1", product: "price_monthly", accountID: account)
        #expect(try Self.duplicateEvents(bench).isEmpty)
        let second = try Self.subscribe(bench, .stripe, "sub_2", product: "price_monthly", accountID: account)
        let events = try Self.duplicateEvents(bench)
        #expect(events.count == 1)
        let data = try #require(events.first?["data"] as? [String: Any])
        #expect(data["entitlement"] as? String == "premium")
        #expect(data["account_id"] as? String == account)
        #expect(Set((data["purchases"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }) == [first.id, second.id])
        _ = try Self.subscribe(bench, .stripe, "sub_2", product: "price_monthly", accountID: account)  // the same state again
        #expect(try Self.duplicateEvents(bench).count == 1)
        let apple = try Self.subscribe(bench, .appStore, "2000000001", product: "com.example.monthly", accountID: account)
        #expect(try Self.duplicateEvents(bench).count == 3, "the App Store one pairs with each Stripe one")
        let current = try await DuplicateSubscriptionsReport(database: bench.database).current(now: bench.now)
        #expect(current.count == 3)
        #expect(current.allSatisfy { $0.accountID == account && $0.entitlement == "premium" })
        #expect(current.contains { Set([$0.first.id, $0.second.id]) == [apple.id, first.id] })
    }

    @Test("Not duplicates: another entitlement, one that will not renew, another account; the list drops a pair that ended")
    func notDuplicates() async throws {
        let bench = try UseCaseBench()
        let account = try Self.account(bench, "user-1")
        let other = try Self.account(bench, "user-2")
        _ = try Self.subscribe(bench, .stripe, "sub_1", product: "price_monthly", accountID: account)
        _ = try Self.subscribe(bench, .stripe, "sub_pro", product: "price_pro", accountID: account)
        _ = try Self.subscribe(bench, .stripe, "sub_ending", product: "price_monthly", accountID: account, status: .canceled, willRenew: false)
        _ = try Self.subscribe(bench, .appStore, "2000000009", product: "com.example.monthly", accountID: other)
        #expect(try Self.duplicateEvents(bench).isEmpty)
        _ = try Self.subscribe(bench, .stripe, "sub_2", product: "price_monthly", accountID: account)
        #expect(try Self.duplicateEvents(bench).count == 1)
        let report = DuplicateSubscriptionsReport(database: bench.database)
        #expect(try await report.current(now: bench.now).count == 1)
        bench.advance(60)
        _ = try Self.subscribe(bench, .stripe, "sub_2", product: "price_monthly", accountID: account, status: .canceled, willRenew: false)
        #expect(try await report.current(now: bench.now).isEmpty, "one of the two will not renew any more")
    }
}
