import Foundation
import Testing

/// Settings that would leave the service open: `serve` refuses to start naming the key, and
/// `config check` flags the same (issue 40 finding 9: no app key; issue 44 item 6: Xcode).
@Suite("serve refuses an open configuration")
struct ServeRefusalCommandLineTests {
    @Test("Outside demo mode an empty api_keys.public stops serve (78) naming it; config check says so too; admin commands still run")
    func noAppKey() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.writeConfig(["api_keys": ["public": [String]()]])
        let serve = try await ChildProcess.run("tollgate", ["serve", "--config", file])
        #expect(serve.status == 78, "\(serve.stderr)")
        #expect(serve.stderr.contains("cannot start: api_keys.public: required outside demo mode"), "\(serve.stderr)")
        let check = try await ChildProcess.run("tollgate", ["config", "check", "--config", file])
        #expect(check.status == 78 && check.stderr.contains("api_keys.public"), "\(check.stderr)")
        let migrate = try await ChildProcess.run("tollgate", ["migrate", "--config", file])
        #expect(migrate.status == 0, "a database tool needs no app key: \(migrate.stderr)")
    }

    @Test("apple.environment Xcode on a public interface stops serve and config check (78) naming apple.environment")
    func xcodeInPublic() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.writeConfig(["apple": ["environment": "Xcode"], "listen": ["host": "0.0.0.0", "port": 0]])
        for arguments in [["serve"], ["config", "check"]] {
            let result = try await ChildProcess.run("tollgate", arguments + ["--config", file])
            #expect(result.status == 78, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("apple.environment") && result.stderr.contains("verifies no signature"), "\(result.stderr)")
        }
        let local = try directory.writeConfig(["apple": ["environment": "Xcode"]])
        let fine = try await ChildProcess.run("tollgate", ["config", "check", "--config", local])
        #expect(fine.status == 0, "loopback and http: a developer's machine: \(fine.stderr)")
    }
}
