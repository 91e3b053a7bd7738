import Domain
import Foundation
import Storage
import Testing

/// Link-out tokens (sealed, one row per token) and the report queue (once per natural key,
/// claimed once, retried, leased), on the suite's backend.
@Suite("Link-out tokens and the report queue")
struct LinkOutStoreTests {
    static let vault = try! LinkOutTokenVault(secrets: Fixtures.secrets)
    static let token = "eyJhcHBBcHBsZUlkIjoxMjM0NTY3ODkwLCJidW5kbGVJZCI6ImNvbS5leGFtcGxlLmFwcCJ9"

    static func checkout(_ session: String, _ db: TestDatabase) throws {
        try db.write { connection in
            try CheckoutRepository.recordStart(
                .init(
                    sessionID: session, checkoutContextID: nil, appUserID: nil, plan: "monthly", priceID: "price_monthly",
                    mode: "subscription", email: nil, redirectURL: nil, context: "{}"),
                on: connection, now: Fixtures.t0)
        }
    }

    static func presented(_ token: String = token) -> LinkOutTokenRepository.Presented {
        .init(
            token: token, reporting: .apple, externalID: "f2b7d5c4-0000-4000-8000-000000000001", program: "apple_external_purchase", storefront: "DEU"
        )
    }

    @Test("A token is stored sealed and hashed, once however many checkouts carry it, and read back only through the vault")
    func tokens() throws {
        let db = try TestDatabase()
        try Self.checkout("cs_1", db)
        try Self.checkout("cs_2", db)
        let first = try db.write {
            try LinkOutTokenRepository.attach(Self.presented(), toCheckout: "cs_1", vault: Self.vault, on: $0, now: Fixtures.t0)
        }
        let second = try db.write {
            try LinkOutTokenRepository.attach(Self.presented(), toCheckout: "cs_2", vault: Self.vault, on: $0, now: Fixtures.t0)
        }
        #expect(first == second)
        #expect(first.reporting == .apple && first.storefront == "DEU" && first.program == "apple_external_purchase")
        let stored = try db.write { try $0.query("SELECT token_hash, token_sealed FROM link_out_tokens") }
        #expect(stored.count == 1)
        let sealed = try #require(stored.first).blob("token_sealed")
        #expect(!String(decoding: sealed, as: UTF8.self).contains("eyJhcHBBcHBsZUlk"), "no plain token at rest")
        #expect(try stored[0].string("token_hash") != Self.token)
        #expect(try db.write { try LinkOutTokenRepository.open(first, vault: Self.vault, on: $0) } == Self.token)
        #expect(try db.write { try LinkOutTokenRepository.find(sessionID: "cs_2", on: $0) } == first)
        #expect(try db.write { try LinkOutTokenRepository.find(sessionID: "cs_unknown", on: $0) } == nil)
        let other = try LinkOutTokenVault(secrets: DomainSecrets(secretKey: "another-secret-0123456789abcdef0123456"))
        #expect(throws: (any Error).self) { try db.write { try LinkOutTokenRepository.open(first, vault: other, on: $0) } }
    }

    @Test("A report is queued once per natural key with its request id kept; claimed once; a failure is retried, then given up")
    func queue() throws {
        let db = try TestDatabase()
        try Self.checkout("cs_1", db)
        let token = try db.write {
            try LinkOutTokenRepository.attach(Self.presented(), toCheckout: "cs_1", vault: Self.vault, on: $0, now: Fixtures.t0)
        }
        let line = LinkOutReportLine(
            kind: .purchase, lineID: "pur_1.1", productID: "price_monthly", productType: .subscription, occurredAt: Fixtures.t0,
            amountMinor: 999, taxMinor: 190, currency: "eur", periodStart: Fixtures.t0, periodEnd: Fixtures.t0.addingTimeInterval(30 * 86400))
        #expect(
            try db.write {
                try LinkOutReportStore.enqueue(
                    token: token, kind: .purchase, naturalKey: "payment:pur_1:in_1", purchaseID: "pur_1", lines: [line], on: $0, now: Fixtures.t0)
            })
        #expect(
            try !db.write {
                try LinkOutReportStore.enqueue(
                    token: token, kind: .purchase, naturalKey: "payment:pur_1:in_1", purchaseID: "pur_1", lines: [line], on: $0, now: Fixtures.t0)
            })
        let requestID = try #require(try db.write { try LinkOutReportStore.firstPayment(purchaseID: "pur_1", on: $0) }?.requestID)
        #expect(UUID(uuidString: requestID) != nil)

        let claimed = try db.write { try LinkOutReportStore.claim(limit: 10, lease: 60, on: $0, now: Fixtures.t0) }
        #expect(claimed.count == 1)
        #expect(claimed.first?.lines == [line] && claimed.first?.requestID == requestID && claimed.first?.attempts == 1)
        #expect(claimed.first?.lines.first?.currency == "EUR")
        #expect(try db.write { try LinkOutReportStore.claim(limit: 10, lease: 60, on: $0, now: Fixtures.t0) }.isEmpty, "claimed once")
        // The claimer died: after the lease the report is due again, with the same request id.
        let again = try db.write { try LinkOutReportStore.claim(limit: 10, lease: 60, on: $0, now: Fixtures.t0.addingTimeInterval(61)) }
        #expect(again.map(\.requestID) == [requestID] && again.first?.attempts == 2)

        let id = try #require(again.first?.id)
        try db.write {
            try LinkOutReportStore.record(
                id, .failed(error: "503 from Apple", retryAt: Fixtures.t0.addingTimeInterval(120)), on: $0, now: Fixtures.t0)
        }
        #expect(try db.write { try LinkOutReportStore.claim(limit: 10, lease: 60, on: $0, now: Fixtures.t0.addingTimeInterval(100)) }.isEmpty)
        #expect(try db.write { try LinkOutReportStore.nextDue(on: $0) } == Fixtures.t0.addingTimeInterval(120))
        let third = try db.write { try LinkOutReportStore.claim(limit: 10, lease: 60, on: $0, now: Fixtures.t0.addingTimeInterval(121)) }
        #expect(third.count == 1)
        try db.write { try LinkOutReportStore.record(id, .sent, on: $0, now: Fixtures.t0.addingTimeInterval(122)) }
        let listed = try db.write { try LinkOutReportStore.list(from: Fixtures.t0, to: Fixtures.t0.addingTimeInterval(86400), limit: 10, on: $0) }
        #expect(listed.map(\.status) == ["sent"])
        #expect(listed.first?.sentAt == Fixtures.t0.addingTimeInterval(122) && listed.first?.attempts == 3 && listed.first?.storefront == "DEU")

        #expect(
            try db.write {
                try LinkOutReportStore.enqueue(
                    token: token, kind: .noPurchase, naturalKey: "no_purchase:\(token.id)", purchaseID: nil, lines: [], on: $0, now: Fixtures.t0)
            })
        let empty = try db.write { try LinkOutReportStore.claim(limit: 10, lease: 60, on: $0, now: Fixtures.t0) }
        try db.write { try LinkOutReportStore.record(empty[0].id, .failed(error: "400 INVALID_TOKEN", retryAt: nil), on: $0, now: Fixtures.t0) }
        let statuses = try db.write { try LinkOutReportStore.list(from: Fixtures.t0, to: Fixtures.t0.addingTimeInterval(1), limit: 10, on: $0) }.map(
            \.status)
        #expect(statuses.sorted() == ["failed", "sent"])
    }
}

extension LinkOutStoreTests {
    /// A purchase completed from checkout `cs_test_1`, which carried a token when `withToken`.
    static func purchase(_ db: TestDatabase, withToken: Bool) throws -> Purchase {
        try checkout("cs_test_1", db)
        if withToken {
            _ = try db.write { try LinkOutTokenRepository.attach(presented(), toCheckout: "cs_test_1", vault: vault, on: $0, now: Fixtures.t0) }
        }
        // What a completed checkout leaves for the reports: the purchase, named on its checkout.
        return try db.write { connection in
            let purchase = try PurchaseRepository.apply(Fixtures.snapshot(), on: connection, now: Fixtures.t0).purchase
            try CheckoutRepository.complete(sessionID: "cs_test_1", purchaseID: purchase.id, on: connection, now: Fixtures.t0)
            return try PurchaseRepository.require(id: purchase.id, on: connection)
        }
    }

    @Test("The first payment is a purchase line, later ones renewals, each once; amounts before tax with the tax beside; no token, no report")
    func payments() throws {
        let db = try TestDatabase()
        let purchase = try Self.purchase(db, withToken: true)
        let first = LinkOutReporting.Payment(
            reference: "in_1", paidAt: Fixtures.t0, amountTotal: 1189, tax: 190, currency: "eur", periodStart: Fixtures.t0,
            periodEnd: Fixtures.t0.addingTimeInterval(30 * 86400))
        #expect(try db.write { try LinkOutReporting.paid(purchase, first, subscription: true, on: $0, now: Fixtures.t0) })
        #expect(try !db.write { try LinkOutReporting.paid(purchase, first, subscription: true, on: $0, now: Fixtures.t0) }, "a repeat queues nothing")
        var renewal = first
        renewal.reference = "in_2"
        renewal.paidAt = Fixtures.t0.addingTimeInterval(30 * 86400)
        #expect(try db.write { try LinkOutReporting.paid(purchase, renewal, subscription: true, on: $0, now: Fixtures.t0) })
        let claimed = try db.write { try LinkOutReportStore.claim(limit: 10, lease: 60, on: $0, now: Fixtures.t0) }
        #expect(claimed.map(\.kind) == [.purchase, .renewal])
        let line = try #require(claimed.first?.lines.first)
        #expect(line.lineID == LinkOutReporting.lineID(purchase.id, "in_1") && line.amountMinor == 999 && line.taxMinor == 190)
        #expect(line.currency == "EUR" && line.productType == .subscription && line.productID == "price_monthly")
        #expect(line.lineID.count == 35 && line.lineID.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }, "an id both platforms accept")
        #expect(claimed.first?.requestID != line.lineID, "Apple's requestIdentifier is a UUID of its own")
        let renewalLine = try #require(claimed.last?.lines.first)
        #expect(renewalLine.paidDaysBefore == 30, "the first period's 30 paid days")

        let plain = try TestDatabase()
        let untokened = try Self.purchase(plain, withToken: false)
        #expect(try !plain.write { try LinkOutReporting.paid(untokened, first, subscription: true, on: $0, now: Fixtures.t0) })
        #expect(try plain.write { try LinkOutReportStore.claim(limit: 10, lease: 60, on: $0, now: Fixtures.t0) }.isEmpty)
    }

    @Test("A refund names the line it refunds and adds what went back since the last one, split in the payment's tax proportion")
    func refunds() throws {
        let db = try TestDatabase()
        let purchase = try Self.purchase(db, withToken: true)
        for reference in ["in_1", "in_2"] {
            let payment = LinkOutReporting.Payment(reference: reference, paidAt: Fixtures.t0, amountTotal: 1189, tax: 190, currency: "eur")
            _ = try db.write { try LinkOutReporting.paid(purchase, payment, subscription: true, on: $0, now: Fixtures.t0) }
        }
        let later = Fixtures.t0.addingTimeInterval(3600)
        func refund(_ reference: String, _ total: Int?) throws -> Bool {
            try db.write {
                try LinkOutReporting.refunded(
                    purchase, payment: reference, refundedAt: later, refundedTotal: total, subscription: true, on: $0, now: later)
            }
        }
        #expect(try refund("in_1", nil))
        #expect(try refund("in_2", 500))
        #expect(try !refund("in_2", 500), "the same refunded total is reported once")
        #expect(try refund("in_2", 1189), "a second refund of the same payment adds the rest")
        #expect(try !refund("in_3", nil), "a payment never reported is not refunded in a report")
        let refunds = try db.write { try LinkOutReportStore.claim(limit: 10, lease: 60, on: $0, now: later) }.filter { $0.kind == .refund }
            .compactMap(\.lines.first)
        let full = try #require(refunds.first { $0.referenceLineID == LinkOutReporting.lineID(purchase.id, "in_1") })
        #expect(full.amountMinor == 999 && full.taxMinor == 190 && full.currency == "EUR" && full.remainingPreTaxMinor == 0)
        // Queued in the same instant: the first refund is the one that leaves more.
        let parts = refunds.filter { $0.referenceLineID == LinkOutReporting.lineID(purchase.id, "in_2") }
            .sorted { ($0.remainingPreTaxMinor ?? 0) > ($1.remainingPreTaxMinor ?? 0) }
        #expect(parts.map(\.amountMinor) == [420, 579] && parts.map(\.taxMinor) == [80, 110], "the parts add up to the payment's 999 and 190")
        #expect(parts.map(\.remainingPreTaxMinor) == [579, 0])
        #expect(Set(parts.map(\.lineID)).count == 2)
    }
}

extension LinkOutStoreTests {
    @Test("An Apple token no purchase came of is reported without lines after a week, once; one that was paid is not")
    func unpurchased() throws {
        let db = try TestDatabase()
        _ = try Self.purchase(db, withToken: true)
        try Self.checkout("cs_idle", db)
        let idle = try db.write {
            try LinkOutTokenRepository.attach(Self.presented("idle-token"), toCheckout: "cs_idle", vault: Self.vault, on: $0, now: Fixtures.t0)
        }
        let early = Fixtures.t0.addingTimeInterval(86_400)
        #expect(
            try db.write {
                try LinkOutReporting.queueUnpurchased(
                    before: early.addingTimeInterval(-LinkOutReporting.unpurchasedAfter), limit: 10, on: $0, now: early)
            } == 0)
        let later = Fixtures.t0.addingTimeInterval(LinkOutReporting.unpurchasedAfter + 1)
        let before = later.addingTimeInterval(-LinkOutReporting.unpurchasedAfter)
        #expect(try db.write { try LinkOutReporting.queueUnpurchased(before: before, limit: 10, on: $0, now: later) } == 1)
        #expect(try db.write { try LinkOutReporting.queueUnpurchased(before: before, limit: 10, on: $0, now: later) } == 0)
        let claimed = try db.write { try LinkOutReportStore.claim(limit: 10, lease: 60, on: $0, now: later) }
        #expect(claimed.map(\.kind) == [.noPurchase] && claimed.first?.tokenID == idle.id && claimed.first?.lines == [])
    }
}
