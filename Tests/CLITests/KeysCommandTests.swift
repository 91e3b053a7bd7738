import Foundation
import Testing

/// Issue 44, item 1: `tollgate keys rotate|status` across processes: start-up refuses a list that
/// drops a key rows use; a rotation killed with SIGKILL mid-run resumes when run again, and no
/// row is ever readable by no key; after it the old key can go.
@Suite("tollgate keys rotate and status, killed and resumed")
struct KeysCommandTests {
    static let rows = 5000
    static let newKey = "cli-new-secret-key-after-rotation-0123456789"

    /// The configuration `file` with `secret_keys` in place of `secret_key`.
    static func listKeys(_ file: String, _ keys: [String]) throws {
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
        json["secret_key"] = nil
        json["secret_keys"] = keys
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: file))
    }

    @Test(
        "drop early → serve refuses naming the count; kill -9 mid-rotate → rotate again resumes → status all current → old key dropped → check passes",
        .timeLimit(.minutes(10)))
    func killThenResume() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.writeConfig()
        #expect(try await ChildProcess.run("tollgate", ["migrate", "--config", file]).status == 0)
        _ = try BackupRestoreCommandLineTests.seed(directory.path + "/db/tollgate.sqlite", count: Self.rows - 1)
        let oldKey = BackupRestoreCommandLineTests.secretKey

        // Dropping the old key before rotating: start-up refuses, naming how many rows use it.
        try Self.listKeys(file, [Self.newKey])
        let refused = try await ChildProcess.run("tollgate", ["serve", "--config", file])
        #expect(refused.status != 0, "\(refused.stderr)")
        #expect(refused.stderr.contains("secret_keys") && refused.stderr.contains("(\(Self.rows) row(s))"), "\(refused.stderr)")
        #expect(!refused.stderr.contains(oldKey) && !refused.stderr.contains(Self.newKey))

        // The new key first, the old one still listed; a rotation killed after its first page (pages
        // of one row, so thousands are left when the kill lands, however fast the machine).
        try Self.listKeys(file, [Self.newKey, oldKey])
        let child = ChildProcess("tollgate", ["keys", "rotate", "--batch-size", "1", "--config", file])
        try child.start()
        let first = await child.waitForStdoutLine { $0.hasPrefix("redemption_codes.code_sealed: ") }
        kill(child.pid, SIGKILL)
        _ = try await child.finish()
        #expect(first != nil, "no progress line before the kill")
        let midway = try await ChildProcess.run("tollgate", ["keys", "status", "--config", file])
        #expect(midway.status == 0, "\(midway.stderr)")
        #expect(midway.stdout.contains("row(s) use an older key: run `tollgate keys rotate`"), "killed mid-way: \(midway.stdout)")
        let check = try await ChildProcess.run("tollgate", ["check", "--config", file])
        #expect(check.status == 0, "every row opens under a listed key mid-rotation: \(check.stderr)")

        let started = Date()
        let resumed = try await ChildProcess.run("tollgate", ["keys", "rotate", "--config", file])
        print("keys rotate resumed: \(Self.rows) codes checked in \(Int(Date().timeIntervalSince(started) * 1000)) ms (including start-up)")
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stdout.contains("redemption_codes.code_sealed: \(Self.rows)/\(Self.rows) row(s) checked"), "\(resumed.stdout.suffix(600))")
        #expect(resumed.stdout.contains("every row uses the current key"), "\(resumed.stdout.suffix(600))")
        for line in midway.stdout.split(separator: "\n") where line.contains("code_sealed") { print("keys status after the kill: \(line)") }

        // The old key dropped: start-up takes it, check opens every row, status counts them under the new key.
        try Self.listKeys(file, [Self.newKey])
        let status = try await ChildProcess.run("tollgate", ["keys", "status", "--config", file])
        #expect(status.status == 0 && status.stdout.contains("redemption_codes.code_sealed: \(Self.rows) row(s) under key "), "\(status.stdout)")
        #expect(status.stdout.contains("every row uses the current key"), "\(status.stdout)")
        let after = try await ChildProcess.run("tollgate", ["check", "--config", file])
        #expect(after.status == 0, "\(after.stderr)")
        let misuse = try await ChildProcess.run("tollgate", ["keys", "status", "--batch-size", "5", "--config", file])
        #expect(misuse.status == 64 && misuse.stderr.contains("'keys status' takes no option"), "\(misuse.stderr)")
        let zero = try await ChildProcess.run("tollgate", ["keys", "rotate", "--batch-size", "0", "--config", file])
        #expect(zero.status == 64, "\(zero.stderr)")
    }
}
