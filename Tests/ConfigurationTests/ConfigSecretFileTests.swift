import Foundation
import Testing
@testable import Configuration

@Suite("Secrets from files")
struct ConfigSecretFileTests {
    @Test("a *_file key supplies the secret, trailing newline trimmed")
    func fileKey() throws {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let secret = try directory.write("stripe", "sk_live_from_file\n")
        let main = try directory.write("secret", "abcdefghijklmnopqrstuvwxyz0123456789\r\n")
        let config = try load(
            json: Fixtures.json([
                "secret_key": NSNull(), "secret_key_file": main, "stripe": ["secret_key_file": secret]
            ]))
        #expect(config.stripe.secretKey == "sk_live_from_file")
        #expect(config.secretKey == "abcdefghijklmnopqrstuvwxyz0123456789")
    }

    @Test("a *_FILE variable supplies the secret")
    func fileVariable() throws {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let secret = try directory.write("rtdn", "rtdn-secret\n")
        let keys = try directory.write("server-keys", "sk_one\nsk_two\n\n")
        let config = try load(
            json: Fixtures.json(),
            environment: [
                "TOLLGATE_GOOGLE_RTDN_TOKEN_FILE": secret, "TOLLGATE_API_KEYS_SERVER_FILE": keys
            ])
        #expect(config.google.rtdnToken == "rtdn-secret")
        #expect(config.apiKeys.serverKeys == ["sk_one", "sk_two"])
    }

    @Test("a secret given inline and as a file in the config file is an error")
    func bothFormsInFile() throws {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let secret = try directory.write("stripe", "sk_file")
        let found = problems(json: Fixtures.json(["stripe": ["secret_key": "sk_inline", "secret_key_file": secret]]))
        #expect(problem("stripe.secret_key", in: found)?.message == "both secret_key and secret_key_file are set; use only one")
    }

    @Test("a secret given as a variable and as a _FILE variable is an error")
    func bothFormsInEnvironment() throws {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let secret = try directory.write("hook", "whsec_file")
        let found = problems(
            json: Fixtures.json(),
            environment: [
                "TOLLGATE_STRIPE_WEBHOOK_SECRET": "whsec_inline", "TOLLGATE_STRIPE_WEBHOOK_SECRET_FILE": secret
            ])
        #expect(
            problem("stripe.webhook_secret", in: found)?.message
                == "both TOLLGATE_STRIPE_WEBHOOK_SECRET and TOLLGATE_STRIPE_WEBHOOK_SECRET_FILE are set; use only one")
    }

    @Test("an environment variable replaces the file's *_file form")
    func environmentBeatsFileForm() throws {
        let config = try load(
            json: Fixtures.json(["stripe": ["secret_key_file": "/nonexistent/stripe"]]),
            environment: ["TOLLGATE_STRIPE_SECRET_KEY": "sk_env"])
        #expect(config.stripe.secretKey == "sk_env")
    }

    @Test("a missing secret file is named, with the reason")
    func missingFile() throws {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let path = directory.file("absent")
        let found = problems(json: Fixtures.json(["mail": ["smtp": ["password_file": path, "username": "u"]]]))
        let password = problem("mail.smtp.password", in: found)
        #expect(password?.source == .secretFile(path))
        #expect(password?.message == "cannot read secret file \(path): no such file")
    }

    @Test("an unreadable secret file never shows up in the error")
    func unreadableFile() throws {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let found = problems(json: Fixtures.json(["apple": ["shared_secret_file": directory.path]]))
        #expect(problem("apple.shared_secret", in: found)?.message == "cannot read secret file \(directory.path): it is a directory")
    }

    @Test("a secret read from a file that fails validation is not echoed")
    func badSecretNotEchoed() throws {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let path = try directory.write("short", "tooShortSecret-XYZ\n")
        let found = problems(json: Fixtures.json(["secret_key": NSNull(), "secret_key_file": path]))
        let secret = problem("secret_key", in: found)
        #expect(secret?.message == "must be at least 32 characters; got 18")
        #expect(secret?.source == .secretFile(path))
        #expect(!ConfigError(problems: found).description.contains("tooShortSecret"))
    }

    @Test("an empty secret file is an error")
    func emptyFile() throws {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let path = try directory.write("empty", "\n")
        let found = problems(json: Fixtures.json(["stripe": ["webhook_secret_file": path]]))
        #expect(problem("stripe.webhook_secret", in: found)?.message == "secret file \(path) is empty")
    }

    @Test("only secrets accept a *_file form")
    func fileFormOnlyForSecrets() {
        let found = problems(json: Fixtures.json(["database": ["path_file": "/x"]]))
        #expect(problem("database.path_file", in: found)?.message == "only secrets can be read from a file; set path directly")
        let environment = problems(json: Fixtures.json(), environment: ["TOLLGATE_DATABASE_PATH_FILE": "/x"])
        #expect(environment.first?.source == .environment("TOLLGATE_DATABASE_PATH_FILE"))
        #expect(environment.first?.message.hasSuffix("set TOLLGATE_DATABASE_PATH directly") == true)
    }
}
