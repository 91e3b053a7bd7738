import Foundation
import Domain
import Storage
import Testing

@Suite("tollgate command line")
struct CommandLineTests {
    @Test("--version and --help exit 0")
    func versionAndHelp() async throws {
        let version = try await ChildProcess.run("tollgate", ["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("tollgate "))
        let help = try await ChildProcess.run("tollgate", ["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("Usage: tollgate"))
        #expect(help.stdout.contains("config check"))
    }

    @Test(
        "A wrong command line exits 64 and says what is wrong",
        arguments: [
            (["frobnicate"], "unknown command 'frobnicate'"),
            (["--verbose"], "unknown option '--verbose'"),
            (["config"], "config check"),
            (["backup"], "destination FILE"),
            (["serve", "--config"], "--config needs a value"),
            (["serve", "--status", "sent"], "--status is only for 'tollgate admin'"),
            (["admin", "frobnicate"], "admin needs one of"),
            (["migrate", "extra"], "takes no argument 'extra'")
        ])
    func usageErrors(arguments: [String], message: String) async throws {
        let result = try await ChildProcess.run("tollgate", arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message))
        #expect(result.stderr.contains("tollgate --help"))
    }

    @Test("config check prints the effective configuration with secrets masked")
    func configCheck() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.writeConfig()
        let result = try await ChildProcess.run("tollgate", ["config", "check", "--config", file])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Configuration is valid."))
        #expect(result.stdout.contains("\"base_url\""))
        #expect(!result.stdout.contains("sk_test_do_not_print_me_123"))
        #expect(!result.stdout.contains("whsec_do_not_print_me"))
        #expect(!result.stdout.contains("cli-test-secret-key"))
    }

    @Test("config check lists each catalog's missing keys: an operator's Italian with one key lacks the rest")
    func configCheckListsMissingKeys() async throws {
        let directory = try TemporaryDirectory()
        let locales = directory.path + "/locales"
        try FileManager.default.createDirectory(atPath: locales, withIntermediateDirectories: true)
        try #"{"home.title": "Torna nella tua app"}"#.write(toFile: locales + "/it.json", atomically: true, encoding: .utf8)
        let file = try directory.writeConfig(["locales": ["dir": locales]])
        let result = try await ChildProcess.run("tollgate", ["config", "check", "--config", file])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Catalog en: complete."))
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("Catalog it: ") })
        #expect(line.contains("missing keys (shown in English): ") && line.contains("home.heading") && !line.contains("home.title"))
        let broken = try directory.writeConfig(["locales": ["dir": locales, "default": "xx"]])
        let refused = try await ChildProcess.run("tollgate", ["config", "check", "--config", broken])
        #expect(refused.status == 78 && refused.stderr.contains("locales.default"))
    }

    @Test(
        "An invalid configuration exits 78 naming the key",
        arguments: [
            (#"{"redemption": {"on_other_user": "swap"}}"#, "redemption.on_other_user"),
            (#"{"stripe": {"secret_kye": "x"}}"#, "stripe.secret_kye"),
            (#"{"listen": {"port": "80a"}}"#, "listen.port")
        ])
    func invalidConfig(extraJSON: String, key: String) async throws {
        let directory = try TemporaryDirectory()
        let extra = try #require(try JSONSerialization.jsonObject(with: Data(extraJSON.utf8)) as? [String: Any])
        let file = try directory.writeConfig(extra)
        let result = try await ChildProcess.run("tollgate", ["config", "check", "--config", file])
        #expect(result.status == 78)
        #expect(result.stderr.contains(key))
        let serve = try await ChildProcess.run("tollgate", ["serve", "--config", file])
        #expect(serve.status == 78)
    }

    @Test("A missing configuration file exits 78")
    func missingConfig() async throws {
        let result = try await ChildProcess.run("tollgate", ["config", "check", "--config", "/nonexistent/tollgate.json"])
        #expect(result.status == 78)
        #expect(result.stderr.contains("/nonexistent/tollgate.json"))
    }

    @Test("migrate creates the database and is a no-op the second time; backup copies it")
    func migrateAndBackup() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.writeConfig()
        let first = try await ChildProcess.run("tollgate", ["migrate", "--config", file])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(FileManager.default.fileExists(atPath: directory.path + "/db/tollgate.sqlite"))
        let second = try await ChildProcess.run("tollgate", ["migrate", "--config", file])
        #expect(second.status == 0)
        #expect(second.stdout.contains("up to date"))

        let copy = directory.path + "/backup.sqlite"
        let backup = try await ChildProcess.run("tollgate", ["backup", copy, "--config", file])
        #expect(backup.status == 0, "\(backup.stderr)")
        let header = try #require(FileManager.default.contents(atPath: copy))
        #expect(header.prefix(15) == Data("SQLite format 3".utf8))
    }

    @Test("backup with no database fails clearly")
    func backupWithoutDatabase() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.writeConfig()
        let result = try await ChildProcess.run("tollgate", ["backup", directory.path + "/b.sqlite", "--config", file])
        #expect(result.status == 1)
        #expect(result.stderr.contains("no database"))
    }
}

@Suite("tollgate admin")
struct AdminCommandLineTests {
    @Test("admin outbox lists messages and rejects a bad status")
    func outbox() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.writeConfig()
        let empty = try await ChildProcess.run("tollgate", ["admin", "outbox", "--config", file])
        #expect(empty.status == 0, "\(empty.stderr)")
        #expect(empty.stdout.contains("0 message(s)"))
        let bad = try await ChildProcess.run("tollgate", ["admin", "outbox", "--status", "lost", "--config", file])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--status must be one of"))
    }
}

@Suite("tollgate admin delete-account")
struct DeleteAccountCommandLineTests {
    @Test("delete-account erases the account of an email, is audited, and says so when there is none")
    func deletesByEmail() async throws {
        let directory = try TemporaryDirectory()
        let (file, database, secrets) = try await directory.migrated()
        let now = Date()
        let accountID = try database.writeSync { connection -> String in
            let account = try AccountRepository.findOrCreate(appUserID: "cli-user", secrets: secrets, on: connection, now: now).0
            try AccountRepository.requestEmail("gone@example.com", accountID: account.id, on: connection, now: now)
            return account.id
        }
        database.close()

        let deleted = try await ChildProcess.run("tollgate", ["admin", "delete-account", "--email", "Gone@Example.com", "--config", file])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(deleted.stdout.contains("\(accountID)\tdeleted") && deleted.stdout.contains("1 account(s) deleted"))
        let missing = try await ChildProcess.run("tollgate", ["admin", "delete-account", "--email", "gone@example.com", "--config", file])
        #expect(missing.status == 1, "the address is erased: no account has it any more")
        #expect(missing.stderr.contains("No account has this email address"))
        let usage = try await ChildProcess.run("tollgate", ["admin", "delete-account", "--config", file])
        #expect(usage.status == 64)
        let notAnAddress = try await ChildProcess.run("tollgate", ["admin", "delete-account", "--email", "gone", "--config", file])
        #expect(notAnAddress.status == 64 && notAnAddress.stderr.contains("must be an email address"))

        let check = try SQLiteDatabase(path: directory.path + "/db/tollgate.sqlite", readers: 1)
        defer { check.close() }
        let row = try check.readSync { try $0.queryOne("SELECT email, deleted_at FROM accounts WHERE id = ?", [accountID]) }
        #expect(try row?.optionalString("email") == nil && row?.optionalInt64("deleted_at") != nil)
        let audit = try check.readSync { try $0.query("SELECT action, actor, details FROM audit_log") }
        #expect(try audit.map { try $0.string("action") } == ["account.delete"])
        #expect(try audit.allSatisfy { try $0.string("actor").hasPrefix("cli:") && !$0.string("details").contains("@") })
    }
}

@Suite("tollgate admin on codes and purchases")
struct AdminCodeCommandLineTests {
    @Test("codes, purchases, revoke and resend work on the service's database and are audited")
    func codesAndPurchases() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.writeConfig()
        #expect(try await ChildProcess.run("tollgate", ["migrate", "--config", file]).status == 0)
        // A paid web purchase with its code, written as the service would.
        let secrets = try DomainSecrets(secretKey: "cli-test-secret-key-0123456789abcdef012345")
        let vault = try CodeVault(secrets: secrets)
        let database = try SQLiteDatabase(path: directory.path + "/db/tollgate.sqlite", readers: 1)
        let now = Date()
        let codeID = try database.writeSync { connection -> String in
            let purchase = try PurchaseRepository.apply(
                PurchaseSnapshot(
                    platform: .stripe, externalID: "sub_cli", productID: "price_1", status: .active,
                    expiresAt: now.addingTimeInterval(86400), observedAt: now, purchaserEmail: "cli@example.com"),
                on: connection, now: now
            ).purchase
            return try CodeRepository.issue(purchaseID: purchase.id, ttl: 3600, vault: vault, on: connection, now: now).record.id
        }
        database.close()

        let codes = try await ChildProcess.run("tollgate", ["admin", "codes", "--email", "cli@example.com", "--config", file])
        #expect(codes.status == 0, "\(codes.stderr)")
        #expect(codes.stdout.contains(codeID) && codes.stdout.contains("1 code(s)"))
        let purchases = try await ChildProcess.run("tollgate", ["admin", "purchases", "--email", "cli@example.com", "--config", file])
        #expect(purchases.status == 0 && purchases.stdout.contains("price_1") && purchases.stdout.contains("1 purchase(s)"))
        let revoke = try await ChildProcess.run("tollgate", ["admin", "revoke", codeID, "--config", file])
        #expect(revoke.status == 0)
        #expect(revoke.stdout.contains("is revoked"))
        let resend = try await ChildProcess.run("tollgate", ["admin", "resend", "--email", "cli@example.com", "--config", file])
        #expect(resend.status == 0, "\(resend.stderr)")
        #expect(resend.stdout.contains("c•••@e•••.com"))
        let mail = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/mail")
        #expect(mail.count == 1, "the resent code was delivered")
        let missing = try await ChildProcess.run("tollgate", ["admin", "resend", "--email", "nobody@example.com", "--config", file])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("No matching web purchase"))
        let audit = try SQLiteDatabase(path: directory.path + "/db/tollgate.sqlite", readers: 1)
        defer { audit.close() }
        let actions = try audit.readSync { try $0.query("SELECT action, actor FROM audit_log ORDER BY created_at") }
        #expect(try actions.map { try $0.string("action") } == ["code.revoke", "code.resend"])
        #expect(try actions.allSatisfy { try $0.string("actor").hasPrefix("cli:") })
    }
}
