import Foundation
import HTTPCore
import Testing

@testable import Web

/// API.md: the app's signed-in calls carry `Authorization: Bearer <access_token>`. Every route
/// that accepts a signed-in caller reads the header the same way (`BearerTokenMiddleware`): a
/// header that is not a bearer token is 401 before the route runs; routes that take no signed-in
/// caller leave the header alone.
@Suite("Bearer tokens on the app's routes")
struct BearerTokenTests {
    static let signedInRoutes: [(method: HTTPMethod, path: String, body: String)] = [
        (.post, "/api/v1/redeem", #"{"code":"ABCD-EFGH-JKMN-PQRS","app_user_id":"u1"}"#),
        (.get, "/api/v1/entitlements?app_user_id=u1", ""),
        (.get, "/api/v1/checkout/6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b?app_user_id=u1", ""),
        (.post, "/api/v1/account/email", #"{"email":"buyer@example.com"}"#),
        (.delete, "/api/v1/account", ""),
        (.get, "/api/v1/account/export", ""),
        (.post, "/api/v1/iap/apple", #"{"transaction_id":"2000000000000001"}"#),
        (.post, "/api/v1/iap/google", #"{"purchase_token":"t","sku":"s"}"#),
        (.post, "/api/v1/iap/gonative", #"{"receipt-data":"e30="}"#)
    ]

    static let malformed = ["Basic dTE6cA==", "Bearer ", "Token abc", "bearer"]

    @Test("A header that is not a bearer token is 401 unauthorized", arguments: signedInRoutes)
    func malformedIsRefused(method: HTTPMethod, path: String, body: String) async throws {
        let harness = try CheckoutHarness()
        for header in Self.malformed {
            let response = await harness.app.send(
                method, path,
                headers: ["X-Api-Key": CheckoutHarness.apiKey, "Content-Type": "application/json", "Authorization": header], body: body)
            #expect(response.status == .unauthorized, "\(method) \(path) with \(header): \(response.text)")
            let error = response.jsonObject?["error"] as? [String: Any]
            #expect(error?["code"] as? String == "unauthorized", "\(path)")
            #expect(error?["message"] as? String == "Authorization must be Bearer <access_token>.", "\(path): \(response.text)")
        }
    }

    @Test("A well-formed token reaches the use case, which checks it: an unknown one is 401 from there")
    func unknownTokenIsCheckedByTheUseCase() async throws {
        let harness = try CheckoutHarness()
        let response = await harness.app.send(
            .get, "/api/v1/account/export", headers: ["X-Api-Key": CheckoutHarness.apiKey, "Authorization": "Bearer not-a-session"])
        #expect(response.status == .unauthorized, "\(response.text)")
        let message = (response.jsonObject?["error"] as? [String: Any])?["message"] as? String
        #expect(message != nil && message != "Authorization must be Bearer <access_token>.", "\(response.text)")
    }

    @Test("A route that takes no signed-in caller ignores the header")
    func otherRoutesIgnoreIt() async throws {
        let harness = try CheckoutHarness()
        let response = await harness.app.send(
            .get, "/api/v1/products", headers: ["X-Api-Key": CheckoutHarness.apiKey, "Authorization": "Basic dTE6cA=="])
        #expect(response.status == .ok, "\(response.text)")
    }
}
