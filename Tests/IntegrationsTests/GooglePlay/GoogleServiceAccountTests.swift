import Foundation
import Integrations
import Testing
import TestSupport

@Suite("Google service account")
struct GoogleServiceAccountTests {
    @Test("The google-auth test service account parses")
    func parsesVector() throws {
        let account = try GoogleServiceAccount(json: PlayVectors.bytes("google-auth-testdata/service_account.json"))
        #expect(account.clientEmail == "service-account@example.com")
        #expect(account.privateKeyID == "1")
        #expect(account.tokenURI == "https://accounts.google.com/o/oauth2/token")
        #expect(!account.description.contains("PRIVATE"))
    }

    @Test(
        "A missing field is named in the error, which never holds the key", arguments: ["client_email", "private_key", "private_key_id", "token_uri"])
    func missingField(field: String) async throws {
        var object = try PlayVectors.json("google-auth-testdata/service_account.json")
        object[field] = nil
        let json = Array(try JSONSerialization.data(withJSONObject: object))
        let error = await expectPlayError(.invalidServiceAccount) { _ = try GoogleServiceAccount(json: json) }
        #expect(error?.message.contains("\"\(field)\"") == true)
        #expect(error?.message.contains("MII") == false)
        #expect(error?.isConfigurationError == true)
    }

    @Test("Unusable keys, types and token URIs are refused without echoing the key")
    func badValues() async throws {
        let base = try PlayVectors.json("google-auth-testdata/service_account.json")
        let ecKey = String(decoding: Array(try Data(contentsOf: SharedVectors.url("apple/certs/testSigningKey.p8"))), as: UTF8.self)
        let cases: [(String, Any)] = [
            ("private_key", "-----BEGIN RSA PRIVATE KEY-----\nMIIBroken\n-----END RSA PRIVATE KEY-----\n"),
            ("private_key", ecKey), ("type", "authorized_user"), ("token_uri", "not a url")
        ]
        for (field, value) in cases {
            var object = base
            object[field] = value
            let json = Array(try JSONSerialization.data(withJSONObject: object))
            let error = await expectPlayError(.invalidServiceAccount) { _ = try GoogleServiceAccount(json: json) }
            #expect(error?.message.contains("MII") == false, "\(field)")
        }
        await expectPlayError(.invalidServiceAccount) { _ = try GoogleServiceAccount(json: Array("[1]".utf8)) }
    }

    @Test("Reads a key file from disk; a missing file is a clear error")
    func fromFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("play-sa-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("sa.json")
        try Data(try PlayVectors.bytes("google-auth-testdata/service_account.json")).write(to: url)
        #expect(try GoogleServiceAccount(contentsOfFile: url.path).clientEmail == "service-account@example.com")
        let missing = directory.appendingPathComponent("absent.json").path
        let error = await expectPlayError(.invalidServiceAccount) { _ = try GoogleServiceAccount(contentsOfFile: missing) }
        #expect(error?.message.contains(missing) == true)
    }
}
