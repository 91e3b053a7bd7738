import Foundation
import Testing
import TestSupport

/// `ContractCheck` holds every HTTP test's response to `Public/openapi.json`; these prove it can
/// fail, on the real document.
@Suite("The response check against /openapi.json")
struct ContractCheckTests {
    private let validator = ContractCheck.validator

    @Test("A redeem success without its session, a purchase status the schema does not list, and an undocumented status are caught")
    func catchesDrift() {
        let body = #"""
            {"status": "success", "code": "K7P2-9QXM-4D8R-2WTF", "account_switched": false,
             "redemption_info": {"purchaser_info": {"app_user_id": "u", "email": null, "stripe_customer_id": null},
               "purchase": {"platform": "stripe", "product_id": "price_1", "status": "sleeping", "expires_at": null}, "entitlements": []},
             "account": {"id": "a", "obfuscated_account_id": "o", "email": null, "email_verified": false}}
            """#
        let problems = validator.problems(
            method: "POST", path: "/api/v1/redeem", status: 200, contentType: "application/json", body: Array(body.utf8))
        #expect(problems.contains { $0.contains("session") }, "\(problems)")
        #expect(problems.contains { $0.contains("/redemption_info/purchase/status") }, "\(problems)")
        let undocumented = validator.problems(method: "POST", path: "/api/v1/redeem", status: 418, contentType: "application/json", body: [])
        #expect(!undocumented.isEmpty)
        let wrongType = validator.problems(method: "GET", path: "/healthz", status: 200, contentType: "text/html", body: Array("<p>".utf8))
        #expect(!wrongType.isEmpty)
    }

    @Test("Each redeem status is checked against its own shape (status is the discriminator)")
    func discriminator() {
        let expired = #"{"status": "expired_code", "code": "X", "expired": {"resent": true, "obfuscated_email": "j•••@e•••.com"}}"#
        #expect(validator.problems(method: "POST", path: "/api/v1/redeem", status: 200, contentType: "application/json", body: Array(expired.utf8)) == [])
        let missing = #"{"status": "expired_code", "code": "X"}"#
        #expect(!validator.problems(method: "POST", path: "/api/v1/redeem", status: 200, contentType: "application/json", body: Array(missing.utf8)).isEmpty)
        let unknown = #"{"status": "maybe", "code": "X"}"#
        #expect(!validator.problems(method: "POST", path: "/api/v1/redeem", status: 200, contentType: "application/json", body: Array(unknown.utf8)).isEmpty)
    }
}
