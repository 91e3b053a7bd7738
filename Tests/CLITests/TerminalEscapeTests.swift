import Domain
import Foundation
import Storage
import Testing

/// Issue 40, finding 6: a value stored before the edge refused control characters (an app user id
/// carrying terminal escapes) is printed escaped by `tollgate admin`, never raw.
@Suite("tollgate admin escapes control characters")
struct TerminalEscapeCommandLineTests {
    @Test("admin accounts prints an app user id with ESC, BEL, CR and a bidi override as \\u{..}, the table's columns intact")
    func accountsEscaped() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.writeConfig()
        #expect(try await ChildProcess.run("tollgate", ["migrate", "--config", file]).status == 0)
        let secrets = try DomainSecrets(secretKey: "cli-test-secret-key-0123456789abcdef012345")
        let database = try SQLiteDatabase(path: directory.path + "/db/tollgate.sqlite", readers: 1)
        let hostile = "old\u{1B}]0;owned\u{7}\u{1B}[2J\r\tfake\u{202E}"
        try database.writeSync { connection in
            let account = try AccountRepository.findOrCreate(appUserID: hostile, secrets: secrets, on: connection, now: Date()).0
            try AccountRepository.requestEmail("escape@example.com", accountID: account.id, on: connection, now: Date())
        }
        database.close()

        let listed = try await ChildProcess.run("tollgate", ["admin", "accounts", "--email", "escape@example.com", "--config", file])
        #expect(listed.status == 0, "\(listed.stderr)")
        let bytes = Array(listed.stdout.utf8)
        #expect(!bytes.contains(0x1B) && !bytes.contains(0x07) && !bytes.contains(0x0D), "raw control bytes reached the terminal")
        #expect(!listed.stdout.contains("\u{202E}"))
        #expect(listed.stdout.contains(#"old\u{1B}]0;owned\u{7}\u{1B}[2J\u{D}\u{9}fake\u{202E}"#), "\(listed.stdout)")
        let row = try #require(listed.stdout.split(separator: "\n").first { $0.contains("escape@example.com") })
        #expect(row.split(separator: "\t", omittingEmptySubsequences: false).count == 7, "one tab per column: \(row)")
    }
}
