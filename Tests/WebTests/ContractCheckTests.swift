import Foundation
import Testing
import TestSupport

/// `ContractCheck` holds every HTTP test's response to `Public/openapi.json`; these prove it can
/// fail, on the real document.
@Suite("The response check against /openapi.json")
struct ContractCheckTests {
    private let validator = ContractCheck.validator

    @Test("A redeem success without account_switched, a purchase status the schema does not list, and an undocumented status are caught")
    func catchesDrift() {
        let body = #"""
            {"status": "success", "code": "K7P2-9QXM-4D8R-2WTF",
             "redemption_info": {"purchaser_info": {"app_user_id": "u", "email": null, "stripe_customer_id": null},
               "purchase": {"platform": "stripe", "product_id": "price_1", "status": "sleeping", "expires_at": null}, "entitlements": []},
             "account": {"id": "a", "obfuscated_account_id": "o", "email": null, "email_verified": false}}
            """#
        let problems = validator.problems(
            method: "POST", path: "/api/v1/redeem", status: 200, contentType: "application/json", body: Array(body.utf8))
        // Issue 40: `session` and `account` are only for a caller that proved the account; `account_switched` is always there.
        #expect(problems.contains { $0.contains("account_switched") }, "\(problems)")
        #expect(problems.contains { $0.contains("/redemption_info/purchase/status") }, "\(problems)")
        let undocumented = validator.problems(method: "POST", path: "/api/v1/redeem", status: 418, contentType: "application/json", body: [])
        #expect(!undocumented.isEmpty)
        let wrongType = validator.problems(method: "GET", path: "/healthz", status: 200, contentType: "text/html", body: Array("<p>".utf8))
        #expect(!wrongType.isEmpty)
    }

    @Test("Each redeem status is checked against its own shape (status is the discriminator)")
    func discriminator() {
        let expired = #"{"status": "expired_code", "code": "X", "expired": {"resent": true, "obfuscated_email": "j•••@e•••.com"}}"#
        #expect(
            validator.problems(method: "POST", path: "/api/v1/redeem", status: 200, contentType: "application/json", body: Array(expired.utf8)) == [])
        let missing = #"{"status": "expired_code", "code": "X"}"#
        #expect(
            !validator.problems(method: "POST", path: "/api/v1/redeem", status: 200, contentType: "application/json", body: Array(missing.utf8))
                .isEmpty)
        let unknown = #"{"status": "maybe", "code": "X"}"#
        #expect(
            !validator.problems(method: "POST", path: "/api/v1/redeem", status: 200, contentType: "application/json", body: Array(unknown.utf8))
                .isEmpty)
    }

    @Test("Every example in the document is valid for its own schema")
    func examplesMatchTheirSchemas() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: PackagePaths.publicDir + "/openapi.json"))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var checked = 0
        for (path, operations) in paths {
            // A template segment becomes a concrete one (`{id}` → `id`), which the operation matches.
            let concrete = path.replacingOccurrences(of: "{", with: "").replacingOccurrences(of: "}", with: "")
            for (method, operation) in operations {
                guard let responses = (operation as? [String: Any])?["responses"] as? [String: Any] else { continue }
                for (status, response) in responses {
                    guard let content = (response as? [String: Any])?["content"] as? [String: [String: Any]], let code = Int(status) else { continue }
                    for (mediaType, media) in content {
                        for (name, example) in media["examples"] as? [String: [String: Any]] ?? [:] {
                            let body = try JSONSerialization.data(withJSONObject: try #require(example["value"]))
                            let problems = validator.problems(
                                method: method.uppercased(), path: concrete, status: code, contentType: mediaType, body: Array(body))
                            #expect(problems == [], "\(method) \(path) \(status) example \(name)")
                            checked += 1
                        }
                    }
                }
            }
        }
        #expect(checked >= 6, "the document's examples were not found")
    }
}
