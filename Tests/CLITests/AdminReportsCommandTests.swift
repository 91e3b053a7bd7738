import Domain
import Foundation
import Storage
import Testing

@Suite("tollgate admin reports")
struct AdminReportsCommandLineTests {
    @Test("admin reports lists the month's link-out reports and their figures; a malformed month is a usage error")
    func reports() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.writeConfig()
        #expect(try await ChildProcess.run("tollgate", ["migrate", "--config", file]).status == 0)
        let secrets = try DomainSecrets(secretKey: "cli-test-secret-key-0123456789abcdef012345")
        let vault = try LinkOutTokenVault(secrets: secrets)
        let database = try SQLiteDatabase(path: directory.path + "/db/tollgate.sqlite", readers: 1)
        let now = Date()
        try database.writeSync { connection in
            let token = try LinkOutTokenRepository.attach(
                .init(token: "token-1", reporting: .apple, externalID: "ext-1", program: "apple_external_purchase", storefront: "DEU"),
                toCheckout: "cs_none", vault: vault, on: connection, now: now)
            let line = LinkOutReportLine(
                kind: .purchase, lineID: "lo_1", productID: "price_1", productType: .oneTime, occurredAt: now, amountMinor: 1000, taxMinor: 190,
                currency: "eur")
            try LinkOutReportStore.enqueue(
                token: token, kind: .purchase, naturalKey: "payment:p1:pi_1", purchaseID: "p1", lines: [line], on: connection, now: now)
        }
        database.close()

        let listed = try await ChildProcess.run("tollgate", ["admin", "reports", "--config", file])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("\tapple\tpurchase\tpending\tDEU\t0\t") && listed.stdout.contains("\t1000\t190\tEUR\t"), "\(listed.stdout)")
        #expect(listed.stdout.contains("1 of 1 report(s) queued in"))
        #expect(listed.stdout.contains("apple\tEUR\t1\t1000\t190\t0\t0\t0\t0\t0\t1\t0"), "\(listed.stdout)")
        let earlier = try await ChildProcess.run("tollgate", ["admin", "reports", "--month", "2020-01", "--config", file])
        #expect(earlier.status == 0 && earlier.stdout.contains("0 of 0 report(s) queued in 2020-01"))
        let bad = try await ChildProcess.run("tollgate", ["admin", "reports", "--month", "2026-13", "--config", file])
        #expect(bad.status == 64 && bad.stderr.contains("--month must be YYYY-MM"))
    }
}
