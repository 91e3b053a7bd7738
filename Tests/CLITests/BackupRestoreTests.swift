import Domain
import Foundation
import Storage
import Synchronization
import Testing

/// Issue 44, item 5: `tollgate backup` taken while redemptions are written restores by copying the
/// file into a fresh path; `tollgate check` passes on it and the restored database serves a
/// redemption. `check` exits non-zero naming the problem: another key, a damaged file, a schema
/// from a newer release.
@Suite("Backup under a redemption storm, restored, checked, served")
struct BackupRestoreCommandLineTests {
    static let stormCodes = 600
    static let secretKey = "cli-test-secret-key-0123456789abcdef012345"

    /// Writes `count` + 1 paid web purchases with their codes, as the service would; returns the codes.
    static func seed(_ path: String, count: Int) throws -> [String] {
        let secrets = try DomainSecrets(secretKey: secretKey)
        let vault = try CodeVault(secrets: secrets)
        let database = try SQLiteDatabase(path: path, readers: 1)
        defer { database.close() }
        let now = Date()
        return try database.writeSync { connection in
            try (0...count).map { index in
                let purchase = try PurchaseRepository.apply(
                    PurchaseSnapshot(
                        platform: .stripe, externalID: "sub_backup_\(index)", productID: "price_storm", status: .active,
                        expiresAt: now.addingTimeInterval(30 * 86400), observedAt: now, purchaserEmail: "buyer\(index)@example.com"),
                    on: connection, now: now
                ).purchase
                return try CodeRepository.issue(purchaseID: purchase.id, ttl: 86400, vault: vault, on: connection, now: now).code.display
            }
        }
    }

    static func redeem(_ http: LoopbackClient, port: Int, code: String, user: String) async throws -> (Int, String?) {
        let body = try JSONSerialization.data(withJSONObject: ["code": code, "app_user_id": user])
        let (status, _, text) = try await http.send(
            "POST", port, "/api/v1/redeem", headers: ["X-Api-Key": "pk_cli_test", "Content-Type": "application/json"], body: Array(body))
        let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        return (status, object?["status"] as? String)
    }

    @Test("backup during a redemption storm → copy into a fresh path → check passes → the copy serves a redemption", .timeLimit(.minutes(10)))
    func backupRestoreCheckServe() async throws {
        let directory = try TemporaryDirectory()
        let extra: [String: Any] = ["entitlements": ["premium": ["price_storm"]]]
        let file = try directory.writeConfig(extra)
        #expect(try await ChildProcess.run("tollgate", ["migrate", "--config", file]).status == 0)
        let codes = try Self.seed(directory.path + "/db/tollgate.sqlite", count: Self.stormCodes)
        let reserved = codes[Self.stormCodes]

        let (server, port) = try await ServeTests.startServer(["serve", "--config", file])
        defer { kill(server.pid, SIGKILL) }
        let http = LoopbackClient()
        let answered = AnswerCount()
        // The storm: every code but the reserved one redeemed, 8 at a time, while the backup runs.
        let storm = Task {
            try await withThrowingTaskGroup(of: Int.self) { group in
                var statuses: [Int] = []
                // Until the backup is done (and a little after): past the last code it starts again,
                // each code's repeat by its own user (a repeat mints a session: still a write), so a
                // slow backup on a busy machine never outlasts the storm.
                var index = 0
                while !answered.stop.load(ordering: .relaxed) {
                    if index >= 8, let status = try await group.next() { statuses.append(status) }
                    let slot = index % Self.stormCodes, code = codes[slot]
                    index += 1
                    group.addTask {
                        let (status, _) = try await Self.redeem(http, port: port, code: code, user: "storm-user-\(slot)")
                        answered.count.wrappingAdd(1, ordering: .relaxed)
                        return status
                    }
                }
                for try await status in group { statuses.append(status) }
                return statuses
            }
        }
        while answered.count.load(ordering: .relaxed) < 10 { try await Task.sleep(for: .milliseconds(20)) }
        let backupPath = directory.path + "/backups/tollgate-backup.sqlite"
        let answeredBefore = answered.count.load(ordering: .relaxed)
        let backup = try await ChildProcess.run("tollgate", ["backup", backupPath, "--config", file])
        let answeredAfter = answered.count.load(ordering: .relaxed)
        // The storm was running when the backup began and goes on after it (how many answers fall
        // inside the backup's own few milliseconds depends on the machine, so that is not asserted).
        let deadline = ContinuousClock.now + .seconds(30)
        while answered.count.load(ordering: .relaxed) <= answeredAfter, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let answeredEnd = answered.count.load(ordering: .relaxed)
        answered.stop.store(true, ordering: .relaxed)
        let statuses = try await storm.value
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(
            answeredBefore >= 10 && answeredEnd > answeredAfter,
            "the storm ran before the backup (\(answeredBefore) answered) and after it (\(answeredAfter) → \(answeredEnd))")
        #expect(statuses.count >= answeredEnd && statuses.allSatisfy { $0 == 200 }, "\(statuses.filter { $0 != 200 })")
        kill(server.pid, SIGTERM)
        _ = try await server.finish()

        // Restore: copy the file into a fresh path (API.md "Restore"); nothing else travels with it.
        let restored = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: restored.path + "/db", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: backupPath, toPath: restored.path + "/db/tollgate.sqlite")
        let restoredConfig = try restored.writeConfig(extra)
        let check = try await ChildProcess.run("tollgate", ["check", "--config", restoredConfig])
        #expect(check.status == 0, "\(check.stdout)\n\(check.stderr)")
        #expect(check.stdout.contains("integrity: ok") && check.stdout.contains("schema: known to this build, up to date"), "\(check.stdout)")
        #expect(check.stdout.contains("row(s) of redemption_codes open under the listed keys") && check.stdout.contains("is sound"))

        let (copy, copyPort) = try await ServeTests.startServer(["serve", "--config", restoredConfig])
        defer { kill(copy.pid, SIGKILL) }
        let (status, outcome) = try await Self.redeem(http, port: copyPort, code: reserved, user: "after-restore")
        #expect(status == 200 && outcome == "success", "the restored copy serves a redemption: \(status) \(outcome ?? "nil")")
        let (repeatStatus, repeatOutcome) = try await Self.redeem(http, port: copyPort, code: codes[0], user: "storm-user-0")
        #expect(repeatStatus == 200 && repeatOutcome != "invalid_code", "a code redeemed before the backup is still known: \(repeatOutcome ?? "nil")")
        kill(copy.pid, SIGTERM)
        _ = try await copy.finish()
    }

    @Test("check exits 1 naming the problem: another secret_key, a damaged file, no database")
    func checkRefuses() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.writeConfig()
        #expect(try await ChildProcess.run("tollgate", ["migrate", "--config", file]).status == 0)
        _ = try Self.seed(directory.path + "/db/tollgate.sqlite", count: 2)
        let sound = try await ChildProcess.run("tollgate", ["check", "--config", file])
        #expect(sound.status == 0, "\(sound.stderr)")

        let otherKey = try directory.writeConfig(["secret_key": "another-secret-key-0123456789abcdef0123456"])
        let wrongKey = try await ChildProcess.run("tollgate", ["check", "--config", otherKey])
        #expect(wrongKey.status == 1)
        #expect(wrongKey.stderr.contains("keys: 3 of 3 row(s) of redemption_codes do not open under any listed key"), "\(wrongKey.stderr)")

        // A newer release's migration: this build does not know the schema.
        let database = try SQLiteDatabase(path: directory.path + "/db/tollgate.sqlite", readers: 1)
        try database.writeSync { try $0.execute("INSERT INTO schema_migrations (id, applied_at) VALUES ('9999_from_the_future', 0)") }
        database.close()
        let newer = try await ChildProcess.run("tollgate", ["check", "--config", file])
        #expect(newer.status == 1 && newer.stderr.contains("schema:") && newer.stderr.contains("9999_from_the_future"), "\(newer.stderr)")

        // A damaged file: the root page of the codes table overwritten.
        let damaged = try TemporaryDirectory()
        let damagedConfig = try damaged.writeConfig()
        #expect(try await ChildProcess.run("tollgate", ["migrate", "--config", damagedConfig]).status == 0)
        let path = damaged.path + "/db/tollgate.sqlite"
        _ = try Self.seed(path, count: 200)
        let reader = try SQLiteDatabase(path: path, readers: 1)
        let (root, pageSize) = try reader.readSync { connection in
            (
                try connection.queryOne("SELECT rootpage FROM sqlite_master WHERE name = 'redemption_codes'")?.int("rootpage") ?? 0,
                try connection.queryOne("PRAGMA page_size")?.int("page_size") ?? 4096
            )
        }
        reader.close()
        #expect(root > 1)
        var bytes = try #require(FileManager.default.contents(atPath: path))
        let start = (root - 1) * pageSize
        bytes.replaceSubrange(start..<(start + pageSize), with: [UInt8](repeating: 0xA5, count: pageSize))
        try bytes.write(to: URL(fileURLWithPath: path))
        let broken = try await ChildProcess.run("tollgate", ["check", "--config", damagedConfig])
        #expect(broken.status == 1, "\(broken.stdout)\n\(broken.stderr)")
        #expect(broken.stderr.contains("tollgate: check:"), "\(broken.stderr)")

        let nothing = try TemporaryDirectory()
        let missing = try await ChildProcess.run("tollgate", ["check", "--config", try nothing.writeConfig()])
        #expect(missing.status == 1 && missing.stderr.contains("no database at"))
    }
}

/// Redemptions answered so far, counted from many tasks, and the storm's stop flag.
final class AnswerCount: Sendable {
    let count = Atomic<Int>(0)
    /// Set when the storm should send no more.
    let stop = Atomic<Bool>(false)
}
