import Domain
import Foundation
import Integrations
import Storage
import Synchronization
import Testing
import TestSupport
import UseCases

/// The link-out report worker with a scripted sender: what it is given, retries, give-ups, and
/// reports a stopped process left `sending`. No HTTP.
@Suite("Link-out report worker")
struct LinkOutReportWorkerTests {
    /// Answers each send from a script and records what it was given.
    final class ScriptedSender: LinkOutReportSender {
        let answers = Mutex<[UpstreamError?]>([])
        let sent = Mutex<[(LinkOutReportStore.Claimed, LinkOutReportContext)]>([])

        init(_ answers: [UpstreamError?] = []) { self.answers.withLock { $0 = answers } }

        func send(_ report: LinkOutReportStore.Claimed, _ context: LinkOutReportContext) async throws {
            sent.withLock { $0.append((report, context)) }
            if let error = answers.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { throw error }
        }
    }

    static let token = "eyJleHRlcm5hbFB1cmNoYXNlSWQiOiJhYmMifQ"

    /// A paid purchase whose checkout carried a Google token, with its first payment queued.
    static func setUp() throws -> (UseCaseBench, Purchase, LinkOutTokenVault) {
        let bench = try UseCaseBench()
        let vault = try LinkOutTokenVault(secrets: bench.secrets)
        let now = bench.now
        _ = try bench.database.writeSync { connection in
            try CheckoutRepository.recordStart(
                .init(
                    sessionID: "cs_sub_1", checkoutContextID: nil, appUserID: nil, plan: "monthly", priceID: "price_monthly",
                    mode: "subscription", email: nil, redirectURL: nil, context: "{}"),
                on: connection, now: now)
            try LinkOutTokenRepository.attach(
                .init(token: token, reporting: .google, externalID: nil, program: "google_external_links", storefront: "USA"),
                toCheckout: "cs_sub_1", vault: vault, on: connection, now: now)
        }
        let (purchase, _) = try bench.paidPurchase()
        _ = try bench.database.writeSync { connection in
            try LinkOutReporting.paid(
                purchase, .init(reference: "in_1", paidAt: now, amountTotal: 999, tax: 0, currency: "usd"), subscription: true,
                on: connection, now: now)
        }
        return (bench, purchase, vault)
    }

    static func statuses(_ bench: UseCaseBench) throws -> [String] {
        try bench.database.readSync { try $0.query("SELECT status FROM link_out_reports ORDER BY created_at, kind").map { try $0.string("status") } }
    }

    @Test("A report goes out with its token opened; a renewal and a refund name the reports they build on")
    func sends() async throws {
        let (bench, purchase, vault) = try Self.setUp()
        let sender = ScriptedSender()
        let worker = LinkOutReportWorker(database: bench.database, senders: [.google: sender], vault: vault, now: bench.nowFunction)
        #expect(await worker.sendDue() == 1)
        #expect(try Self.statuses(bench) == ["sent"])
        let (first, context) = try #require(sender.sent.withLock { $0.first })
        #expect(context.token == Self.token && context.tokenRecord.reporting == .google && first.kind == .purchase)
        #expect(first.requestID == first.lines.first?.lineID, "Google's externalTransactionId is the line's id")
        #expect(context.firstPaymentRequestID == nil, "the first payment builds on nothing")

        bench.advance(30 * 86400)
        let now = bench.now
        try bench.database.writeSync { connection in
            try LinkOutReporting.paid(
                purchase, .init(reference: "in_2", paidAt: now, amountTotal: 999, tax: 0, currency: "usd"), subscription: true, on: connection,
                now: now)
            try LinkOutReporting.refunded(
                purchase, payment: "in_2", refundedAt: now, refundedTotal: nil, subscription: true, on: connection, now: now)
        }
        #expect(await worker.sendDue() == 2)
        let later = sender.sent.withLock { Array($0.dropFirst()) }
        #expect(later.map(\.0.kind) == [.renewal, .refund])
        #expect(later.allSatisfy { $0.1.firstPaymentRequestID == first.requestID })
        #expect(later.last?.1.refundedRequestID == later.first?.0.requestID, "a refund names the payment report it refunds")
    }

    @Test("An outage is retried after a backoff with the same request id; a refusal fails the report for an operator to see")
    func retries() async throws {
        let (bench, _, vault) = try Self.setUp()
        let outage = UpstreamError(service: "play_store", kind: .badStatus(503), message: "503 from Google")
        let refused = UpstreamError(service: "play_store", kind: .badStatus(400), message: "400 INVALID_ARGUMENT: externalTransactionToken")
        let sender = ScriptedSender([outage, refused])
        var configuration = LinkOutReportWorker.Configuration()
        configuration.retry = EventRetryPolicy(jitter: 0)
        let worker = LinkOutReportWorker(
            database: bench.database, senders: [.google: sender], vault: vault, configuration: configuration, now: bench.nowFunction)
        #expect(await worker.sendDue() == 1)
        #expect(try Self.statuses(bench) == ["pending"])
        #expect(await worker.sendDue() == 0, "not due before its backoff")
        bench.advance(6)
        #expect(await worker.sendDue() == 1)
        #expect(try Self.statuses(bench) == ["failed"])
        let ids = sender.sent.withLock { $0.map(\.0.requestID) }
        #expect(ids.count == 2 && ids[0] == ids[1])
        let error = try bench.database.readSync { try $0.queryOne("SELECT last_error FROM link_out_reports")?.optionalString("last_error") }
        #expect(error?.contains("INVALID_ARGUMENT") == true)
    }

    @Test("A report the platform refused fails at once and keeps the whole refusal: who, status, code, message")
    func refusedReport() async throws {
        let (bench, _, vault) = try Self.setUp()
        let refused = UpstreamError(
            report: .init(
                kind: .rejected, service: "play_store", httpStatus: 400, code: "INVALID_ARGUMENT",
                message: "Google Play refused the external transaction (400)"))
        let sender = ScriptedSender([refused])
        let worker = LinkOutReportWorker(database: bench.database, senders: [.google: sender], vault: vault, now: bench.nowFunction)
        #expect(await worker.sendDue() == 1)
        #expect(try Self.statuses(bench) == ["failed"])
        let error = try bench.database.readSync { try $0.queryOne("SELECT last_error FROM link_out_reports")?.optionalString("last_error") }
        #expect(error == "play_store rejected 400 INVALID_ARGUMENT: Google Play refused the external transaction (400)")
    }

    @Test("A report a stopped process left sending is sent again, once: at start on SQLite, after the lease on PostgreSQL")
    func recovers() async throws {
        let (bench, _, vault) = try Self.setUp()
        let now = bench.now
        _ = try bench.database.writeSync { try LinkOutReportStore.claim(limit: 10, lease: 600, on: $0, now: now) }
        // Other instances may be sending on PostgreSQL: only the lease hands the report on there.
        if TestDatabaseBackend.isPostgres { bench.advance(LinkOutReportWorker.Configuration().lease + 1) }
        let sender = ScriptedSender()
        let worker = LinkOutReportWorker(database: bench.database, senders: [.google: sender], vault: vault, now: bench.nowFunction)
        let running = Task { await worker.run() }
        for _ in 0..<200 where sender.sent.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(10)) }
        worker.stop()
        await running.value
        #expect(sender.sent.withLock { $0.count } == 1)
        #expect(try Self.statuses(bench) == ["sent"])
    }
}

extension LinkOutReportWorkerTests {
    @Test("A renewal waits while the first payment's report is not accepted yet, then goes out after it")
    func renewalWaitsForItsPurchase() async throws {
        let (bench, purchase, vault) = try Self.setUp()
        let now = bench.now
        _ = try bench.database.writeSync { connection in
            try LinkOutReporting.paid(
                purchase, .init(reference: "in_2", paidAt: now, amountTotal: 999, tax: 0, currency: "usd"), subscription: true, on: connection,
                now: now)
        }
        let outage = UpstreamError(service: "play_store", kind: .badStatus(503), message: "503 from Google")
        let sender = ScriptedSender([outage])
        var configuration = LinkOutReportWorker.Configuration()
        configuration.retry = EventRetryPolicy(jitter: 0)
        let worker = LinkOutReportWorker(
            database: bench.database, senders: [.google: sender], vault: vault, configuration: configuration, now: bench.nowFunction)
        #expect(await worker.sendDue() == 2)
        #expect(sender.sent.withLock { $0.map(\.0.kind) } == [.purchase], "the renewal was not sent while its purchase failed")
        bench.advance(6)
        #expect(await worker.sendDue() == 2)
        #expect(sender.sent.withLock { $0.map(\.0.kind) } == [.purchase, .purchase, .renewal])
        #expect(try Self.statuses(bench) == ["sent", "sent"])
    }
}
