import Domain
import Foundation
import Storage
import Testing
import UseCases

/// Finding a buyer and reading their page, without HTTP.
@Suite("Console queries")
struct ConsoleQueriesTests {
    static let viewer = AuditActor(name: "val@example.com", role: .viewer)

    @Test("Search finds the buyer by email in any case, the code in any spelling, purchase, Stripe subscription, checkout and customer ids")
    func search() async throws {
        let console = ConsoleBench()
        let (purchase, code) = try console.bench.paidPurchase("sub_9")
        let spaced = code.display.lowercased().replacingOccurrences(of: "-", with: " ")
        for query in ["BUYER@example.COM", " buyer@example.com ", spaced, purchase.id, "sub_9", "cs_sub_9", "cus_1"] {
            let hits = try await console.queries.search(query, by: Self.viewer)
            #expect(hits.map(\.buyerID) == [purchase.id], "\(query)")
        }
        #expect(try await console.queries.search("nobody@example.com", by: Self.viewer).isEmpty)
        #expect(try await console.queries.search("", by: Self.viewer).isEmpty)
    }

    @Test(
        "Once redeemed, the buyer is the account: found by app user id and account id; their page lists purchases with history, codes, devices, mail")
    func buyerPage() async throws {
        let console = ConsoleBench()
        let (purchase, accountID) = try await ConsoleActionsTests.redeemed(console)
        try DeleteAccountTests.queueMail(console.bench, count: 1)
        #expect(try await console.queries.search("user-1", by: Self.viewer).first?.buyerID == accountID)
        #expect(try await console.queries.search(accountID, by: Self.viewer).first?.buyerID == accountID)
        #expect(try await console.queries.search("buyer@example.com", by: Self.viewer).first?.buyerID == accountID)
        let buyer = try await console.queries.buyer(accountID, by: Self.viewer)
        #expect(buyer.records.email == "buyer@example.com" && buyer.records.appUserIDs == ["user-1"])
        #expect(buyer.records.purchases.map(\.id) == [purchase.id] && buyer.records.history[purchase.id]?.first?.source == "checkout")
        #expect(buyer.records.codes.first?.status == .redeemed && buyer.records.devices.map(\.deviceID) == ["device-1"])
        #expect(buyer.mail.map(\.template) == ["redemption_code"])
        await #expect(throws: UseCaseError.self) { _ = try await console.queries.buyer("acc_missing", by: Self.viewer) }
        // What operators did to its purchases and codes shows on the buyer's page too.
        _ = try await console.operatorActions.resend(
            email: nil, purchaseID: purchase.id, by: AuditActor(name: "sue@example.com", role: .support, reason: "ticket"), now: console.bench.now)
        #expect(try await console.queries.buyer(accountID, by: Self.viewer).audit.map(\.action) == ["code.resend"])
    }

    @Test("Attention lists a web purchase paid over 24 hours ago whose code was never redeemed, and not a redeemed one")
    func attention() async throws {
        let console = ConsoleBench()
        let (waiting, _) = try console.bench.paidPurchase("sub_wait", email: "wait@example.com")
        _ = try await ConsoleActionsTests.redeemed(console)
        #expect(try await console.queries.attention(by: Self.viewer, now: console.bench.now).unredeemed.isEmpty)
        console.bench.advance(86400 + 1)
        let attention = try await console.queries.attention(by: Self.viewer, now: console.bench.now)
        #expect(attention.unredeemed.map(\.id) == [waiting.id])
    }

    @Test("The attention page's duplicates and 7-day funnel are issue 42's reports, readable by every role")
    func followUp() async throws {
        let console = ConsoleBench()
        let (paid, _) = try console.bench.paidPurchase("sub_web", email: "web@example.com")
        var funnel = try await console.queries.funnel(by: Self.viewer, now: console.bench.now)
        #expect(funnel.paid == 1 && funnel.redeemed == 0, "\(funnel)")
        #expect(try await console.queries.duplicates(by: Self.viewer, now: console.bench.now).isEmpty)
        let account = try DuplicateSubscriptionsTests.account(console.bench, "user-twice")
        let first = try DuplicateSubscriptionsTests.subscribe(console.bench, .stripe, "sub_a", product: "price_monthly", accountID: account)
        let second = try DuplicateSubscriptionsTests.subscribe(
            console.bench, .appStore, "2000000009", product: "com.example.monthly", accountID: account)
        let pairs = try await console.queries.duplicates(by: Self.viewer, now: console.bench.now)
        #expect(pairs.count == 1 && pairs.first?.accountID == account, "\(pairs)")
        #expect(Set(pairs.flatMap { [$0.first.id, $0.second.id] }) == [first.id, second.id])
        console.bench.advance(86_400 + 1)
        funnel = try await console.queries.funnel(by: Self.viewer, now: console.bench.now)
        #expect(funnel.unredeemedOver24h == 1, "\(paid.id) waits for its buyer: \(funnel)")
    }

    @Test("The audit log pages newest first and filters by operator and action")
    func audit() async throws {
        let console = ConsoleBench()
        let now = console.bench.now
        try console.bench.database.writeSync { connection in
            for index in 0..<60 {
                try AuditLog.record(
                    AuditActor(name: index % 2 == 0 ? "ann@example.com" : "bob@example.com", role: .support, reason: "r\(index)"),
                    action: index % 3 == 0 ? "code.revoke" : "code.resend", target: "pur_\(index)", details: "", on: connection,
                    now: now.addingTimeInterval(Double(index)))
            }
        }
        let first = try await console.queries.audit(actor: nil, action: nil, before: nil, by: Self.viewer)
        #expect(first.count == 50 && first.first?.reason == "r59")
        let second = try await console.queries.audit(
            actor: nil, action: nil, before: Timestamp.milliseconds(try require(first.last).createdAt), by: Self.viewer)
        #expect(second.count == 10 && second.last?.reason == "r0")
        let anns = try await console.queries.audit(actor: "ann@example.com", action: "code.revoke", before: nil, by: Self.viewer)
        #expect(anns.count == 10 && anns.allSatisfy { $0.actor == "ann@example.com" && $0.action == "code.revoke" })
    }
}

extension ConsoleQueriesTests {
    @Test("A Play purchase is found by its order id (kept as an alias) and an App Store one by its original transaction id; neither by a prefix")
    func storeIDs() async throws {
        let console = ConsoleBench()
        let now = console.bench.now
        let (play, apple) = try console.bench.database.writeSync { connection -> (Purchase, Purchase) in
            var snapshot = PurchaseSnapshot(
                platform: .playStore, externalID: "token-abc", productID: "monthly", status: .active, expiresAt: now.addingTimeInterval(86400),
                observedAt: now, transactionID: "GPA.1234-5678-9012-34567")
            let play = try PurchaseRepository.apply(snapshot, on: connection, now: now).purchase
            snapshot = PurchaseSnapshot(
                platform: .appStore, externalID: "2000000123456789", productID: "monthly", status: .active, expiresAt: now.addingTimeInterval(86400),
                observedAt: now)
            return (play, try PurchaseRepository.apply(snapshot, on: connection, now: now).purchase)
        }
        #expect(try await console.queries.search("GPA.1234-5678-9012-34567", by: Self.viewer).map(\.buyerID) == [play.id])
        #expect(try await console.queries.search("token-abc", by: Self.viewer).map(\.buyerID) == [play.id])
        #expect(try await console.queries.search("2000000123456789", by: Self.viewer).map(\.buyerID) == [apple.id])
        #expect(try await console.queries.search("GPA.1234", by: Self.viewer).isEmpty)
        let history = try console.bench.database.readSync { try PurchaseHistory.changes(purchaseID: play.id, limit: 5, on: $0) }
        #expect(history.map(\.source) == ["store_notification"])
    }
}
