import Domain
import Foundation
import Integrations
import Storage
import Testing
import TestSupport
import UseCases

/// A paid checkout's webhook: its effect (the purchase, its code, the code's mail) and its event id
/// are kept together or not at all, so a failure between them cannot leave one without the other,
/// and a replay after success applies nothing twice.
@Suite("Stripe checkout events: the effect and the event id in one write")
struct StripeEventOnceTests {
    /// `ApplyStripeEvent` over a Stripe client that must not be called (a payment-mode session
    /// carries everything), and a paid session of `price_lifetime`.
    static func setUp() throws -> (UseCaseBench, ApplyStripeEvent, StripeEvent) {
        let bench = try UseCaseBench()
        // Nothing listens here: a call to Stripe would fail the test with an upstream error.
        let stripe = StripeClient(secretKey: "sk_test_1", apiBase: "http://127.0.0.1:9", http: URLSessionHTTPClient(service: "stripe"))
        let vouching = StripeVouching(prices: ["price_lifetime"])
        let apply = ApplyStripeEvent(
            database: bench.database, stripe: stripe,
            completeCheckout: CompleteCheckout(
                database: bench.database, stripe: stripe, codeTTL: 3600, vault: bench.vault, secrets: bench.secrets, codeMail: bench.codeMail,
                vouching: vouching),
            vouching: vouching, logger: .disabled)
        let session = StripeCheckoutSession(
            id: "cs_once", mode: .payment, status: .complete, paymentStatus: .paid, email: "buyer@example.com", paymentIntentID: "pi_once",
            metadata: ["price_id": "price_lifetime"], created: bench.now, livemode: false)
        let event = StripeEvent(
            id: "evt_once", type: "checkout.session.completed", created: bench.now, livemode: false, payload: .checkoutSessionCompleted(session))
        return (bench, apply, event)
    }

    /// Rows of the tables a completion writes, and the event ids recorded.
    static func counts(_ bench: UseCaseBench) throws -> [String: Int] {
        try bench.database.readSync { connection in
            var counts: [String: Int] = [:]
            for table in ["purchases", "redemption_codes", "mail_outbox", "webhook_events"] {
                counts[table] = try connection.queryOne("SELECT count(*) AS n FROM \(table)")?.int("n") ?? -1
            }
            return counts
        }
    }

    /// Makes every insert into `table` fail, as a crash or a full disk would at that point.
    static func refuseInserts(into table: String, _ bench: UseCaseBench) throws {
        try bench.database.writeSync { connection in
            switch connection.dialect {
            case .sqlite:
                try connection.executeScript("CREATE TRIGGER refuse_\(table) BEFORE INSERT ON \(table) BEGIN SELECT RAISE(ABORT, 'refused'); END;")
            case .postgresql:
                try connection.executeScript(
                    """
                    CREATE FUNCTION refuse_\(table)() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$ LANGUAGE plpgsql;
                    CREATE TRIGGER refuse_\(table) BEFORE INSERT ON \(table) FOR EACH ROW EXECUTE FUNCTION refuse_\(table)();
                    """)
            }
        }
    }

    static func allowInserts(into table: String, _ bench: UseCaseBench) throws {
        try bench.database.writeSync { connection in
            try connection.executeScript("DROP TRIGGER refuse_\(table)" + (connection.dialect == .postgresql ? " ON \(table)" : ""))
        }
    }

    @Test("When the event id cannot be recorded, nothing of the completion is kept; the retry applies it once")
    func idFailureKeepsNoEffect() async throws {
        let (bench, apply, event) = try Self.setUp()
        try Self.refuseInserts(into: "webhook_events", bench)
        await #expect(throws: (any Error).self) { try await apply.apply(event, now: bench.now) }
        #expect(try Self.counts(bench) == ["purchases": 0, "redemption_codes": 0, "mail_outbox": 0, "webhook_events": 0])
        try Self.allowInserts(into: "webhook_events", bench)
        #expect(try await apply.apply(event, now: bench.now) == .applied)
        #expect(try Self.counts(bench) == ["purchases": 1, "redemption_codes": 1, "mail_outbox": 1, "webhook_events": 1])
    }

    @Test("A failing effect leaves no event id, so Stripe's retry applies it; a replay after success applies nothing twice")
    func effectFailureKeepsNoID() async throws {
        let (bench, apply, event) = try Self.setUp()
        try Self.refuseInserts(into: "redemption_codes", bench)
        await #expect(throws: (any Error).self) { try await apply.apply(event, now: bench.now) }
        #expect(try Self.counts(bench) == ["purchases": 0, "redemption_codes": 0, "mail_outbox": 0, "webhook_events": 0])
        try Self.allowInserts(into: "redemption_codes", bench)
        #expect(try await apply.apply(event, now: bench.now) == .applied)
        bench.advance(60)
        #expect(try await apply.apply(event, now: bench.now) == .duplicate)
        #expect(try Self.counts(bench) == ["purchases": 1, "redemption_codes": 1, "mail_outbox": 1, "webhook_events": 1])
    }

    @Test(
        "A subscription event of a price this deployment does not sell is acknowledged and stores nothing; once its purchase is known, it is applied")
    func subscriptionVouching() async throws {
        let (bench, apply, _) = try Self.setUp()
        let foreign = StripeSubscription(
            id: "sub_foreign", status: .active, customerID: "cus_1", priceIDs: ["price_elsewhere"],
            currentPeriodEnd: bench.now.addingTimeInterval(86400))
        let updated = StripeEvent(
            id: "evt_sub_1", type: "customer.subscription.updated", created: bench.now, livemode: false, payload: .subscriptionUpdated(foreign))
        #expect(try await apply.apply(updated, now: bench.now) == .ignored)
        #expect(try Self.counts(bench)["purchases"] == 0 && Self.counts(bench)["webhook_events"] == 1)

        // Known already (recorded from a checkout this deployment vouched for): its events apply.
        try bench.database.writeSync { connection in
            _ = try PurchaseRepository.apply(
                PurchaseSnapshot(
                    platform: .stripe, externalID: "sub_foreign", productID: "price_elsewhere", status: .active,
                    expiresAt: bench.now.addingTimeInterval(86400), observedAt: bench.now.addingTimeInterval(-60)),
                on: connection, now: bench.now)
        }
        var cancelled = foreign
        cancelled.status = .canceled
        let deleted = StripeEvent(
            id: "evt_sub_2", type: "customer.subscription.deleted", created: bench.now.addingTimeInterval(1), livemode: false,
            payload: .subscriptionDeleted(cancelled))
        #expect(try await apply.apply(deleted, now: bench.now) == .applied)
        let stored = try bench.database.readSync { try PurchaseRepository.find(platform: .stripe, reference: "sub_foreign", on: $0) }
        #expect(stored?.status != .active)
    }
}
