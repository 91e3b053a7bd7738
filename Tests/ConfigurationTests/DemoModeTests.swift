import Foundation
import Testing
@testable import Configuration

@Suite("Demo mode")
struct DemoModeTests {
    /// Demo mode with the database (and so the demo secret) in a fresh directory.
    private func demo(_ directory: TempDirectory, _ extra: [String: String] = [:]) throws -> TollgateConfig {
        var environment = ["TOLLGATE_DATABASE_PATH": directory.file("tollgate.sqlite")]
        environment.merge(extra) { _, new in new }
        return try ConfigLoader.load(path: nil, environment: environment)
    }

    @Test("no file: demo defaults on http://localhost:8080")
    func defaults() throws {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let config = try demo(directory)
        #expect(config.isDemo)
        #expect(config.baseURL == "http://localhost:8080")
        #expect(config.listen.host == "127.0.0.1" && config.listen.port == 8080)
        #expect(config.mail.transport == .file && config.mail.fileDir == "data/mail")
        #expect(config.app.name == "Tollgate demo" && config.app.scheme == "tollgate-demo")
        #expect(config.plans["demo"]?.priceID == TollgateConfig.demoPriceID)
        #expect(config.secretKey.count == 64 && config.secretKey.utf8.allSatisfy { ConfigValidator.isHexDigit($0) })
    }

    @Test("the demo secret is written once with mode 0600 and reused")
    func secretPersisted() throws {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let first = try demo(directory)
        let second = try demo(directory)
        #expect(first.secretKey == second.secretKey)
        let path = directory.file(DemoSecret.fileName)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let stored = try String(contentsOfFile: path, encoding: .utf8)
        #expect(stored.trimmingCharacters(in: .newlines) == first.secretKey)
    }

    @Test("DemoSecret creates its directory and differs between directories")
    func demoSecretDirectories() throws {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let a = try DemoSecret.loadOrCreate(directory: directory.file("a/nested"))
        let b = try DemoSecret.loadOrCreate(directory: directory.file("b"))
        #expect(a != b)
        #expect(try DemoSecret.loadOrCreate(directory: directory.file("a/nested")) == a)
    }

    @Test("a damaged demo secret file is an error naming it")
    func damagedDemoSecret() throws {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let path = try directory.write(DemoSecret.fileName, "short\n")
        #expect {
            try DemoSecret.loadOrCreate(directory: directory.path)
        } throws: { error in
            guard let error = error as? ConfigError else { return false }
            return error.problems.first?.source == .secretFile(path) && !error.description.contains("short\n")
        }
    }

    @Test("environment overrides apply in demo mode")
    func overrides() throws {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let config = try demo(directory, ["TOLLGATE_LISTEN_PORT": "9000", "TOLLGATE_LOG_LEVEL": "debug"])
        #expect(config.listen.port == 9000)
        #expect(config.baseURL == "http://localhost:9000")
        #expect(config.log.level == .debug)
    }

    @Test("a secret_key from the environment is used and no demo secret file is made")
    func explicitSecret() throws {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let secret = String(repeating: "s", count: 40)
        let config = try demo(directory, ["TOLLGATE_SECRET_KEY": secret])
        #expect(config.secretKey == secret)
        #expect(!FileManager.default.fileExists(atPath: directory.file(DemoSecret.fileName)))
    }

    @Test("bad values stop demo mode too, before any file is written")
    func demoValidation() throws {
        let directory = try TempDirectory()
        defer { directory.remove() }
        #expect(throws: ConfigError.self) { try demo(directory, ["TOLLGATE_REDEMPTION_MODE": "swap"]) }
        #expect(!FileManager.default.fileExists(atPath: directory.file(DemoSecret.fileName)))
    }

    @Test("the Stripe simulator: on in demo mode without a Stripe key, off with one, never together with a key")
    func stripeSimulator() throws {
        let directory = try TempDirectory()
        defer { directory.remove() }
        #expect(try demo(directory).stripe.simulator)
        #expect(!(try demo(directory, ["TOLLGATE_STRIPE_SECRET_KEY": "sk_test_real"]).stripe.simulator))
        #expect(!(try demo(directory, ["TOLLGATE_STRIPE_SIMULATOR": "false"]).stripe.simulator))
        do {
            _ = try demo(directory, ["TOLLGATE_STRIPE_SIMULATOR": "true", "TOLLGATE_STRIPE_SECRET_KEY": "sk_live_real"])
            Issue.record("a secret key with the simulator on must refuse to start")
        } catch let error as ConfigError {
            let text = "\(error)"
            #expect(text.contains("stripe.simulator") && text.contains("stripe.secret_key"), "\(text)")
            #expect(!text.contains("sk_live_real"), "the key itself is never printed")
        }
    }
}
