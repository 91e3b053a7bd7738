import Domain
import Foundation
import Storage
import Testing

/// `tollgate admin forget-secrets`: support unbinds a lost phone's install secrets, audited.
@Suite("tollgate admin forget-secrets")
struct ForgetSecretsCommandLineTests {
    @Test("forget-secrets unbinds every install secret of the account's app users, is audited, and needs --account and --reason")
    func forgetsSecrets() async throws {
        let directory = try TemporaryDirectory()
        let (file, database, secrets) = try await directory.migrated()
        let now = Date()
        let secret = try #require(InstallSecret("lost-phone-install-secret-0123"))
        let accountID = try database.writeSync { connection -> String in
            let account = try AccountRepository.findOrCreate(appUserID: "cli-user", secrets: secrets, on: connection, now: now).0
            try AppUserSecretRepository.bind(secret, appUserID: "cli-user", deviceID: "d1", on: connection, now: now)
            return account.id
        }
        database.close()

        let usage = try await ChildProcess.run("tollgate", ["admin", "forget-secrets", "--account", accountID, "--config", file])
        #expect(usage.status == 64 && usage.stderr.contains("--reason"))
        let forgotten = try await ChildProcess.run(
            "tollgate", ["admin", "forget-secrets", "--account", accountID, "--reason", "lost phone", "--config", file])
        #expect(forgotten.status == 0, "\(forgotten.stderr)")
        #expect(forgotten.stdout.contains("\(accountID)\t1 install secret(s) unbound"))
        let unknown = try await ChildProcess.run(
            "tollgate", ["admin", "forget-secrets", "--account", "acc_nobody", "--reason", "x", "--config", file])
        #expect(unknown.status == 1)

        let check = try SQLiteDatabase(path: directory.path + "/db/tollgate.sqlite", readers: 1)
        defer { check.close() }
        #expect(try check.readSync { try AppUserSecretRepository.hashes(appUserID: "cli-user", on: $0) }.isEmpty)
        let audit = try check.readSync { try $0.query("SELECT action, actor, target FROM audit_log") }
        #expect(try audit.map { try $0.string("action") } == ["account.forget_secrets"])
        #expect(try audit.allSatisfy { try $0.string("actor").hasPrefix("cli:") && $0.string("target") == accountID })
    }
}

extension TemporaryDirectory {
    /// A configuration file, its database migrated by `tollgate migrate`, opened, and the secrets
    /// the configuration's key gives.
    func migrated() async throws -> (file: String, database: SQLiteDatabase, secrets: DomainSecrets) {
        let file = try writeConfig()
        #expect(try await ChildProcess.run("tollgate", ["migrate", "--config", file]).status == 0)
        let secrets = try DomainSecrets(secretKey: "cli-test-secret-key-0123456789abcdef012345")
        return (file, try SQLiteDatabase(path: path + "/db/tollgate.sqlite", readers: 1), secrets)
    }
}
