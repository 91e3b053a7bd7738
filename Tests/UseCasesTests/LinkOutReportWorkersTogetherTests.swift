import Domain
import Foundation
import Storage
import Synchronization
import Testing
import TestSupport
import UseCases

/// Several instances' report workers on one database (API.md "Link-out compliance": the queue is
/// claimed safely by N instances): every report goes out once, whoever claims it.
@Suite("Link-out report workers side by side")
struct LinkOutReportWorkersTogetherTests {
    /// Records what it was given, after a short pause (so claims overlap).
    final class CountingSender: LinkOutReportSender {
        let sent = Mutex<[String: Int]>([:])

        func send(_ report: LinkOutReportStore.Claimed, _ context: LinkOutReportContext) async throws {
            try await Task.sleep(for: .milliseconds(1))
            sent.withLock { $0[report.requestID, default: 0] += 1 }
        }
    }

    @Test("Three workers drain 200 reports together: each is sent exactly once and recorded sent")
    func threeWorkers() async throws {
        let bench = try UseCaseBench()
        let vault = try LinkOutTokenVault(secrets: bench.secrets)
        let now = bench.now
        try bench.database.writeSync { connection in
            for index in 0..<200 {
                let token = try LinkOutTokenRepository.attach(
                    .init(token: "token-\(index)", reporting: .google, externalID: nil, program: "google_external_links", storefront: "USA"),
                    toCheckout: "cs_none", vault: vault, on: connection, now: now)
                let line = LinkOutReportLine(
                    kind: .purchase, lineID: LinkOutReporting.lineID("p\(index)", "pi"), productID: "price_1", productType: .oneTime,
                    occurredAt: now, amountMinor: 999, taxMinor: 0, currency: "usd")
                try LinkOutReportStore.enqueue(
                    token: token, kind: .purchase, naturalKey: "payment:p\(index):pi", purchaseID: "p\(index)", lines: [line],
                    requestID: line.lineID, on: connection, now: now)
            }
        }
        let sender = CountingSender()
        var configuration = LinkOutReportWorker.Configuration()
        configuration.batch = 8
        let workers = (0..<3).map { _ in
            LinkOutReportWorker(
                database: bench.database, senders: [.google: sender], vault: vault, configuration: configuration, now: bench.nowFunction)
        }
        await withTaskGroup(of: Void.self) { group in
            for worker in workers {
                group.addTask { for _ in 0..<100 where await worker.sendDue() > 0 {} }
            }
        }
        let sent = sender.sent.withLock { $0 }
        #expect(sent.count == 200 && sent.values.allSatisfy { $0 == 1 }, "\(sent.values.filter { $0 != 1 }.count) sent more than once")
        let statuses = try bench.database.readSync { try $0.query("SELECT status FROM link_out_reports").map { try $0.string("status") } }
        #expect(statuses.count == 200 && statuses.allSatisfy { $0 == "sent" })
    }
}
