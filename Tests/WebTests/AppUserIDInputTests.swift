import Foundation
import HTTPCore
import Testing

@testable import Web

/// One `app_user_id` rule wherever an app user is named (API.md: 1 to 255 bytes on one line):
/// the redeem body, the entitlements and checkout-status queries and `/receipts`' `user_id`
/// refuse a line break or 256 bytes with the same 400 as `/checkout/start`, and write nothing.
@Suite("app_user_id: one rule on every route")
struct AppUserIDInputTests {
    static let tooLong = String(repeating: "u", count: AppUserIDInput.maxBytes + 1)

    static func message(_ response: HTTPResponse) -> String? {
        let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: [String: Any]]
        return object?["error"]?["message"] as? String
    }

    @Test("POST /api/v1/redeem: a line break or 256 bytes is a 400 naming app_user_id; nothing is written", arguments: ["user\n1", tooLong])
    func redeem(_ user: String) async throws {
        let harness = try CheckoutHarness()
        let body = try JSONSerialization.data(withJSONObject: ["code": "AAAA-BBBB-CCCC-DDDD", "app_user_id": user])
        let response = await harness.app.send(
            .post, "/api/v1/redeem", headers: ["X-Api-Key": CheckoutHarness.apiKey, "Content-Type": "application/json"],
            body: String(decoding: body, as: UTF8.self))
        #expect(response.status == .badRequest)
        #expect(Self.message(response) == "app_user_id must be 1 to 255 characters on one line.")
        #expect(try await harness.count("SELECT COUNT(*) FROM app_users") == 0)
    }

    @Test(
        "GET /api/v1/entitlements and /api/v1/checkout/{id}: the same 400 for the query's app_user_id",
        arguments: [
            "/api/v1/entitlements?app_user_id=", "/api/v1/checkout/0b7e5f7a-3c55-4a53-9b0e-3a8f1d1e2c11?app_user_id="
        ])
    func queries(_ path: String) async throws {
        let harness = try CheckoutHarness()
        for user in ["user%0A1", Self.tooLong] {
            let response = await harness.app.send(.get, path + user, headers: ["X-Api-Key": CheckoutHarness.apiKey])
            #expect(response.status == .badRequest, "\(path)")
            #expect(Self.message(response) == "app_user_id must be 1 to 255 characters on one line.")
        }
    }

    @Test("POST /receipts: user_id past 255 bytes is a 400 naming user_id")
    func receipts() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let response = try await harness.receipts(["user_id": Self.tooLong, "original_transaction_id": "2000000000000901"], platform: "APP_STORE")
        #expect(response.status == .badRequest)
        #expect(Self.message(response) == "user_id must be 1 to 255 characters on one line.")
    }

    @Test(
        "Every app_user_id (and /receipts' user_id) in openapi.json states this rule: 255 bytes, and a pattern refusing exactly the line breaks it refuses"
    )
    func documented() throws {
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: PackagePaths.publicDir + "/openapi.json"))) as? [String: Any]
        )
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var schemas: [String: [String: Any]] = [:]
        for (path, operations) in paths {
            for case let (method, operation as [String: Any]) in operations {
                for case let parameter as [String: Any] in operation["parameters"] as? [Any] ?? [] where parameter["name"] as? String == "app_user_id"
                {
                    schemas["\(method) \(path) query"] = parameter["schema"] as? [String: Any]
                }
                let contents = (operation["requestBody"] as? [String: Any])?["content"] as? [String: [String: Any]] ?? [:]
                for (type, content) in contents {
                    let properties = (content["schema"] as? [String: Any])?["properties"] as? [String: [String: Any]] ?? [:]
                    for name in ["app_user_id", path == "/receipts" ? "user_id" : ""] {
                        schemas["\(method) \(path) \(type) \(name)"] = properties[name]
                    }
                }
            }
        }
        #expect(schemas.count >= 7, "\(schemas.keys.sorted())")
        let samples = [
            "user-1", "a\tb", "a\nb", "a\u{0B}b", "a\u{0C}b", "a\rb", "a\u{85}b", "a\u{2028}b", "a\u{2029}b", "\u{1F600}",
            "a\u{1B}[2Jb", "a\u{0}b", "a\u{7F}b", "a\u{9B}b", "a\u{202E}b", "a\u{200B}b", "a\u{FEFF}b", "é-ü"
        ]
        for (place, schema) in schemas {
            #expect(schema["maxLength"] as? Int == AppUserIDInput.maxBytes, "\(place)")
            let pattern = try NSRegularExpression(pattern: try #require(schema["pattern"] as? String, "\(place)"))
            for sample in samples {
                let matches = pattern.firstMatch(in: sample, range: NSRange(sample.startIndex..., in: sample)) != nil
                #expect(matches == AppUserIDInput.isValid(sample), "\(place): \(sample.unicodeScalars.map { String($0.value, radix: 16) })")
            }
        }
    }
}
