import Foundation
import Testing
@testable import Configuration

/// Issue 44, item 1: `secret_keys`, the keys of a rotation of Tollgate's own key.
@Suite("secret_keys: a list newest first, or the one secret_key")
struct ConfigSecretKeysTests {
    static let newKey = "new-key-0123456789abcdef0123456789abcdef"
    static let oldKey = "old-key-0123456789abcdef0123456789abcdef"

    @Test("secret_keys replaces secret_key (newest first); secret_key alone still works; from the environment and a file too; masked")
    func list() throws {
        let list = try load(json: Fixtures.json(["secret_key": NSNull(), "secret_keys": [Self.newKey, Self.oldKey]]))
        #expect(list.secretKeyList == [Self.newKey, Self.oldKey])
        let one = try load(json: Fixtures.json())
        #expect(one.secretKeyList == ["0123456789abcdef0123456789abcdef-test"])
        let environment = try load(
            json: Fixtures.json(["secret_key": NSNull()]), environment: ["TOLLGATE_SECRET_KEYS": "[\"\(Self.newKey)\",\"\(Self.oldKey)\"]"])
        #expect(environment.secretKeyList == [Self.newKey, Self.oldKey])
        let directory = try TempDirectory()
        defer { directory.remove() }
        let file = try directory.write("keys", "\(Self.newKey)\n\(Self.oldKey)\n")
        let fromFile = try load(json: Fixtures.json(["secret_key": NSNull(), "secret_keys_file": file]))
        #expect(fromFile.secretKeyList == [Self.newKey, Self.oldKey])
        let masked = list.maskedJSON()
        #expect(!masked.contains(Self.newKey) && !masked.contains(Self.oldKey), "config check masks every key of the list")
    }

    @Test("Both secret_key and secret_keys, a key under 32 bytes, a repeated key: start-up refuses naming the path, never the key")
    func badInput() {
        let both = problems(json: Fixtures.json(["secret_keys": [Self.newKey]]))
        #expect(problem("secret_keys", in: both)?.message.contains("not both") == true)
        let short = problems(json: Fixtures.json(["secret_key": NSNull(), "secret_keys": [Self.newKey, "short-key"]]))
        #expect(problem("secret_keys[1]", in: short)?.message == "must be at least 32 bytes; got 9")
        let repeated = problems(json: Fixtures.json(["secret_key": NSNull(), "secret_keys": [Self.newKey, Self.oldKey, Self.newKey]]))
        #expect(problem("secret_keys[2]", in: repeated)?.message == "repeats an earlier entry of the list")
        for found in [both, short, repeated] {
            #expect(!found.contains { $0.message.contains(Self.newKey) || $0.message.contains("short-key") })
        }
        let neither = problems(json: Fixtures.json(["secret_key": NSNull()]))
        #expect(problem("secret_key", in: neither)?.message.hasPrefix("required outside demo mode") == true)
    }
}
