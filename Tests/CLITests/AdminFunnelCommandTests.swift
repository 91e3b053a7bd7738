import Domain
import Foundation
import Storage
import Testing

@Suite("tollgate admin funnel")
struct AdminFunnelCommandLineTests {
    @Test("admin funnel prints the window's figures; a malformed --since is a usage error naming the forms")
    func funnel() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.writeConfig()
        #expect(try await ChildProcess.run("tollgate", ["migrate", "--config", file]).status == 0)
        let database = try SQLiteDatabase(path: directory.path + "/db/tollgate.sqlite", readers: 1)
        let now = Date()
        try database.writeSync { connection in
            let applied = try PurchaseRepository.apply(
                PurchaseSnapshot(
                    platform: .stripe, externalID: "sub_cli", productID: "price_1", status: .active, expiresAt: now.addingTimeInterval(86_400),
                    observedAt: now.addingTimeInterval(-3600)),
                on: connection, now: now)
            try BuyerJourneyRepository.start(
                purchaseID: applied.purchase.id, paidAt: now.addingTimeInterval(-3600), linked: false, schedule: .off, on: connection, now: now)
            try BuyerJourneyRepository.markSuccessSeen(purchaseID: applied.purchase.id, on: connection, now: now)
        }
        database.close()

        let shown = try await ChildProcess.run("tollgate", ["admin", "funnel", "--since", "24h", "--config", file])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("since\t24h\npaid\t1\nsuccess_page_seen\t1\nredeemed\t0\n"), "\(shown.stdout)")
        #expect(shown.stdout.contains("median_seconds_to_redeem\t-\nunredeemed_over_24h\t0"), "\(shown.stdout)")
        let bad = try await ChildProcess.run("tollgate", ["admin", "funnel", "--since", "7x", "--config", file])
        #expect(bad.status == 64 && bad.stderr.contains("<n>h or <n>d"), "\(bad.stderr)")
    }
}
