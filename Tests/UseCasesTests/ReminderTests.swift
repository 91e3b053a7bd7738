import Domain
import Foundation
import Mail
import Storage
import Testing
import UseCases

/// Reminder mails without HTTP (API.md "Every buyer brought in"): the schedule as a pure rule,
/// then the worker on a real database with the clock moved by hand: what is queued when, once,
/// and what stops it.
@Suite("Reminder mails")
struct ReminderTests {
    static let schedule = ReminderSchedule(offsets: [3600, 86_400])

    // MARK: - The schedule (pure)

    struct Case: Sendable, CustomTestStringConvertible {
        let step: Int
        let after: TimeInterval
        let send: Int?
        let nextStep: Int
        let nextDue: TimeInterval?
        var testDescription: String { "step \(step) at +\(Int(after)) s" }
    }

    @Test(
        "The latest due reminder is sent, earlier ones passed over, none more than 24 h late",
        arguments: [
            Case(step: 0, after: 3599, send: nil, nextStep: 0, nextDue: 3600),
            Case(step: 0, after: 3600, send: 0, nextStep: 1, nextDue: 86_400),
            Case(step: 0, after: 7200, send: 0, nextStep: 1, nextDue: 86_400),  // learnt of the payment an hour late
            Case(step: 0, after: 90_000, send: 1, nextStep: 2, nextDue: nil),  // back after downtime: only the latest
            Case(step: 1, after: 86_400, send: 1, nextStep: 2, nextDue: nil),
            Case(step: 1, after: 86_400 + 86_400, send: 1, nextStep: 2, nextDue: nil),  // exactly 24 h late still leaves
            Case(step: 1, after: 86_400 + 86_401, send: nil, nextStep: 2, nextDue: nil),  // more than 24 h late: never
            Case(step: 0, after: 86_400 + 86_401, send: nil, nextStep: 2, nextDue: nil),  // down for over a day: nothing late
            Case(step: 2, after: 999_999, send: nil, nextStep: 2, nextDue: nil)
        ])
    func schedule(_ example: Case) {
        let paid = Date(timeIntervalSince1970: 1_800_000_000)
        let decision = Self.schedule.decide(step: example.step, paidAt: paid, now: paid.addingTimeInterval(example.after))
        #expect(decision.send == example.send)
        #expect(decision.nextStep == example.nextStep)
        #expect(decision.nextDue == example.nextDue.map { paid.addingTimeInterval($0) })
    }

    // MARK: - The worker

    static func worker(_ bench: UseCaseBench) -> ReminderWorker {
        ReminderWorker(
            database: bench.database, schedule: schedule,
            mail: ReminderMail(codeMail: bench.codeMail, vault: bench.vault, codeTTL: bench.policy.codeTTL), now: bench.nowFunction)
    }

    /// The reminders queued so far, by idempotency key (`reminder:<purchase>:<index>`).
    static func reminders(_ bench: UseCaseBench) throws -> [String] {
        try bench.database.readSync { connection in
            try connection.query("SELECT idempotency_key FROM mail_outbox WHERE template = 'redemption_reminder' ORDER BY idempotency_key")
                .map { try $0.string("idempotency_key") }
        }
    }

    /// Journeys in the due index.
    static func due(_ bench: UseCaseBench) throws -> Int {
        try bench.database.readSync { try $0.queryOne("SELECT COUNT(*) AS n FROM buyer_journeys WHERE reminder_due_at IS NOT NULL")?.int("n") ?? -1 }
    }

    static func redeem(_ bench: UseCaseBench, _ code: RedemptionCode, appUserID: String = "user-1") async throws {
        let answer = try await bench.redeem.redeem(
            RedeemCode.Request(code: code.display, appUserID: appUserID, deviceID: nil, bearer: nil), now: bench.now
        ).answer
        guard case .redeemed = answer else { throw Missing() }
    }

    @Test("Each reminder is queued once, at its time, and delivery is woken; then the purchase leaves the due index")
    func remindersAtTheirTimes() async throws {
        let bench = try UseCaseBench()
        let (purchase, _) = try bench.paidPurchase(reminders: Self.schedule)
        let worker = Self.worker(bench)
        await worker.runOnce()
        #expect(try Self.reminders(bench).isEmpty)
        bench.advance(3600)
        await worker.runOnce()
        await worker.runOnce()
        #expect(try Self.reminders(bench) == ["reminder:\(purchase.id):0"])
        #expect(bench.wakes.count.load(ordering: .relaxed) == 1)
        bench.advance(86_400 - 3600 - 1)
        await worker.runOnce()
        #expect(try Self.reminders(bench).count == 1)
        bench.advance(1)
        await worker.runOnce()
        #expect(try Self.reminders(bench) == ["reminder:\(purchase.id):0", "reminder:\(purchase.id):1"])
        #expect(try Self.due(bench) == 0)
        bench.advance(7 * 86_400)
        await worker.runOnce()
        #expect(try Self.reminders(bench).count == 2)
    }

    @Test("Back after downtime: only the latest due reminder leaves; over 24 h late, none")
    func downtime() async throws {
        let bench = try UseCaseBench()
        let (first, _) = try bench.paidPurchase("sub_a", reminders: Self.schedule)
        bench.advance(90_000)
        let (second, _) = try bench.paidPurchase("sub_b", reminders: Self.schedule)
        await Self.worker(bench).runOnce()
        #expect(try Self.reminders(bench) == ["reminder:\(first.id):1"])
        bench.advance(86_400 + 86_401)
        await Self.worker(bench).runOnce()
        #expect(try Self.reminders(bench) == ["reminder:\(first.id):1"], "the second purchase's reminders are over a day late: \(second.id)")
        #expect(try Self.due(bench) == 0)
    }

    @Test("Reminders off: nothing is scheduled")
    func off() async throws {
        let bench = try UseCaseBench()
        _ = try bench.paidPurchase()
        #expect(try Self.due(bench) == 0)
        #expect(try bench.dump("buyer_journeys").count == 1, "the funnel still records the purchase")
    }

    @Test("A redeemed purchase leaves the due index and gets no reminder")
    func redeemedGetsNone() async throws {
        let bench = try UseCaseBench()
        let (_, code) = try bench.paidPurchase(reminders: Self.schedule)
        #expect(try Self.due(bench) == 1)
        try await Self.redeem(bench, code)
        #expect(try Self.due(bench) == 0)
        bench.advance(3600)
        await Self.worker(bench).runOnce()
        #expect(try Self.reminders(bench).isEmpty)
    }

    @Test("An expired code is replaced by a fresh one for the reminder, reported as code.issued")
    func freshCode() async throws {
        let bench = try UseCaseBench()
        let (purchase, _) = try bench.paidPurchase(reminders: Self.schedule)
        bench.advance(3600)  // the bench's codes live 3600 s: the first one has just expired
        await Self.worker(bench).runOnce()
        let codes = try bench.database.readSync { connection in
            try connection.query("SELECT status FROM redemption_codes WHERE purchase_id = ? ORDER BY seq", [purchase.id]).map {
                try $0.string("status")
            }
        }
        #expect(codes == ["replaced", "live"])
        #expect(try Self.reminders(bench).count == 1)
    }

    @Test("At the outbox: a reminder leaves only while its purchase waits; other mail always passes")
    func sendCheck() async throws {
        let bench = try UseCaseBench()
        let (purchase, code) = try bench.paidPurchase(reminders: Self.schedule)
        let (refunded, _) = try bench.paidPurchase("sub_refunded", reminders: Self.schedule)
        let gate = ReminderGate(database: bench.database, now: bench.nowFunction)
        let parameters = [ReminderMail.purchaseParameter: purchase.id]
        #expect(try await gate.stopReason(template: ReminderMail.template, parameters: parameters) == nil)
        let snapshot = PurchaseSnapshot(
            platform: .stripe, externalID: "sub_refunded", productID: "price_monthly", status: .refunded,
            expiresAt: bench.now.addingTimeInterval(86_400), observedAt: bench.now.addingTimeInterval(1), purchaserEmail: "buyer@example.com",
            customerID: "cus_1")
        let now = bench.now
        _ = try bench.database.writeSync { try PurchaseRepository.apply(snapshot, on: $0, now: now) }
        #expect(try await gate.stopReason(template: ReminderMail.template, parameters: [ReminderMail.purchaseParameter: refunded.id]) == "ended")
        try await Self.redeem(bench, code)
        #expect(try await gate.stopReason(template: ReminderMail.template, parameters: parameters) == "linked")
        #expect(try await gate.stopReason(template: "redemption_code", parameters: parameters) == nil, "code mails are never suppressed")
    }

    @Test("An erased account's purchase is never reminded, though erasure detaches it")
    func erased() async throws {
        let bench = try UseCaseBench()
        let (purchase, code) = try bench.paidPurchase(reminders: Self.schedule)
        try await Self.redeem(bench, code)
        let accountID = try #require(try bench.database.readSync { try PurchaseRepository.find(id: purchase.id, on: $0)?.accountID })
        _ = try await DeleteAccount(database: bench.database, events: .disabled).byOperator(accountID: accountID, actor: "test", now: bench.now)
        let stop = try bench.database.readSync { try ReminderEligibility.check(purchaseID: purchase.id, on: $0, now: bench.now) }
        #expect(stop == .erased)
    }

    @Test("Deleting an account stops its purchases' reminders and removes their unsubscribe tokens and its manual grants; the funnel keeps its times")
    func erasureRemovesThisRoundsRows() async throws {
        let bench = try UseCaseBench()
        let (_, redeemed) = try bench.paidPurchase("sub_redeemed")
        try await Self.redeem(bench, redeemed)
        let (waiting, _) = try bench.paidPurchase("sub_waiting", reminders: Self.schedule)
        let now = bench.now
        let accountID = try bench.database.writeSync { connection -> String in
            let account = try #require(try AccountRepository.find(appUserID: "user-1", on: connection))
            try AccountRepository.requestEmail("buyer@example.com", accountID: account.id, on: connection, now: now)
            _ = try ReminderUnsubscribeRepository.issue(purchaseID: waiting.id, on: connection, now: now)
            _ = try ManualEntitlementRepository.grant(
                accountID: account.id, entitlement: "premium", endsAt: now.addingTimeInterval(86_400), by: "ada@example.com",
                reason: "the buyer's name is Jo", on: connection, now: now)
            return account.id
        }
        #expect(try Self.due(bench) == 1 && bench.dump("reminder_unsubscribes").count == 1 && bench.dump("manual_entitlements").count == 1)
        _ = try await DeleteAccount(database: bench.database, events: .disabled).byOperator(accountID: accountID, actor: "test", now: bench.now)
        #expect(try Self.due(bench) == 0, "the unredeemed purchase bought with the account's address is reminded no more")
        #expect(try bench.dump("reminder_unsubscribes").isEmpty && bench.dump("manual_entitlements").isEmpty)
        #expect(try bench.dump("buyer_journeys").count == 2, "paid and linked times stay for the funnel: they name nobody")
    }

    @Test("Unsubscribe: a token works once, any other never, and the purchase's reminders stop")
    func unsubscribe() async throws {
        let bench = try UseCaseBench()
        let (purchase, _) = try bench.paidPurchase(reminders: Self.schedule)
        let now = bench.now
        let token = try bench.database.writeSync { try ReminderUnsubscribeRepository.issue(purchaseID: purchase.id, on: $0, now: now) }
        #expect(try bench.dump("reminder_unsubscribes").allSatisfy { !$0.contains(token) }, "stored hashed")
        let unsubscribe = UnsubscribeReminders(database: bench.database)
        #expect(try await unsubscribe.isUsable(token))
        #expect(try await !unsubscribe.isUsable(String(repeating: "A", count: 43)))
        #expect(try await !unsubscribe.isUsable("../../etc"))
        #expect(try await unsubscribe.unsubscribe(token, now: bench.now))
        #expect(try await !unsubscribe.unsubscribe(token, now: bench.now), "used")
        #expect(try await !unsubscribe.isUsable(token))
        #expect(try Self.due(bench) == 0)
        let gate = ReminderGate(database: bench.database, now: bench.nowFunction)
        #expect(
            try await gate.stopReason(template: ReminderMail.template, parameters: [ReminderMail.purchaseParameter: purchase.id]) == "unsubscribed")
        bench.advance(3600)
        await Self.worker(bench).runOnce()
        #expect(try Self.reminders(bench).isEmpty)
    }

    @Test("The due scan reads the partial index on what is due, not the journeys of redeemed purchases")
    func dueScanUsesTheIndex() throws {
        let bench = try UseCaseBench()
        let plan = try bench.database.readSync { connection -> String in
            switch connection.dialect {
            case .sqlite:
                return try connection.query("EXPLAIN QUERY PLAN " + BuyerJourneyRepository.dueScanSQL, [Int64(0), 32])
                    .map { try $0.string("detail") }.joined(separator: "\n")
            case .postgresql:
                // An empty table may be scanned sequentially; the index must at least be usable.
                try connection.execute("SET LOCAL enable_seqscan = off")
                return try connection.query("EXPLAIN " + BuyerJourneyRepository.dueScanSQL, [Int64(0), 32])
                    .map { try $0.string("QUERY PLAN") }.joined(separator: "\n")
            }
        }
        #expect(plan.contains("buyer_journeys_reminder_due"), "\(plan)")
    }
}
