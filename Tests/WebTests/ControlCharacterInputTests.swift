import Foundation
import HTTPCore
import Testing

@testable import Web

/// Issue 40, finding 6: `app_user_id` and `device_id` refuse control and format characters
/// (Cc, Cf, line and paragraph separators) at the edge with a 400 naming the field; nothing is written.
@Suite("app_user_id and device_id: no control or format characters")
struct ControlCharacterInputTests {
    static func message(_ response: HTTPResponse) -> String? {
        let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: [String: Any]]
        return object?["error"]?["message"] as? String
    }

    static func redeem(_ harness: CheckoutHarness, _ fields: [String: String]) async throws -> HTTPResponse {
        let body = try JSONSerialization.data(withJSONObject: fields)
        return await harness.app.send(
            .post, "/api/v1/redeem", headers: ["X-Api-Key": CheckoutHarness.apiKey, "Content-Type": "application/json"],
            body: String(decoding: body, as: UTF8.self))
    }

    @Test(
        "POST /api/v1/redeem: NUL, ESC, CSI, DEL, a bidi override, a zero-width space or a tab in app_user_id → 400 naming it",
        arguments: [
            "user\u{0}1", "user\u{1B}[2J", "user\u{9B}31m", "user\u{7F}", "user\u{202E}gnp.exe", "us\u{200B}er", "user\t1"
        ])
    func appUserID(_ user: String) async throws {
        let harness = try CheckoutHarness()
        let response = try await Self.redeem(harness, ["code": "AAAA-BBBB-CCCC-DDDD", "app_user_id": user])
        #expect(response.status == .badRequest)
        #expect(Self.message(response)?.hasPrefix("app_user_id must not contain control or format characters") == true, "\(response.text)")
        #expect(try await harness.count("SELECT COUNT(*) FROM app_users") == 0)
    }

    @Test(
        "POST /api/v1/redeem: the same characters in device_id → 400 naming device_id; nothing is written",
        arguments: [
            "device\u{0}", "device\u{1B}]0;owned\u{7}", "device\u{2028}2", "device\u{2066}"
        ])
    func deviceID(_ device: String) async throws {
        let harness = try CheckoutHarness()
        let response = try await Self.redeem(harness, ["code": "AAAA-BBBB-CCCC-DDDD", "app_user_id": "user-1", "device_id": device])
        #expect(response.status == .badRequest)
        #expect(Self.message(response)?.hasPrefix("device_id must not contain control or format characters") == true, "\(response.text)")
        #expect(try await harness.count("SELECT COUNT(*) FROM app_users") == 0)
        #expect(try await harness.count("SELECT COUNT(*) FROM devices") == 0)
    }

    @Test("Queries and /checkout/start refuse an escape in app_user_id too; letters of any script stay welcome")
    func queriesAndCheckout() async throws {
        let harness = try CheckoutHarness()
        for path in ["/api/v1/entitlements?app_user_id=a%1B%5B31m", "/api/v1/checkout/0b7e5f7a-3c55-4a53-9b0e-3a8f1d1e2c11?app_user_id=a%00b"] {
            let response = await harness.app.send(.get, path, headers: ["X-Api-Key": CheckoutHarness.apiKey])
            #expect(response.status == .badRequest, "\(path)")
            #expect(Self.message(response)?.hasPrefix("app_user_id must not contain") == true, "\(path): \(response.text)")
        }
        let start = await harness.app.send(.get, "/checkout/start?plan=monthly&app_user_id=x%E2%80%AEy")
        #expect(start.status == .badRequest)
        let fine = await harness.app.send(
            .get, "/api/v1/entitlements?app_user_id=%C3%A9l%C3%A8ve-%E5%AD%A6%E7%94%9F", headers: ["X-Api-Key": CheckoutHarness.apiKey])
        #expect(fine.status == .ok, "\(fine.text)")
    }
}
