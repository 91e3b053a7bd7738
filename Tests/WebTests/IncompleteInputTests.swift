import Foundation
import HTTPCore
import HTTPRouting
import Testing

@testable import Web

/// Inputs cut short get the 400 the contract declares, not an answer meant for another case.
@Suite("Incomplete links and ids")
struct IncompleteInputTests {
    @Test(
        "A confirmation or password link without its token is a 400 page that says what to do; an unknown token stays 410",
        arguments: [
            "/email/confirm", "/auth/password/reset"
        ])
    func linkWithoutToken(path: String) async throws {
        let harness = try CheckoutHarness()
        for response in [
            await harness.app.send(.get, path),
            await AccountFlowTests.form(harness, path, [:])
        ] {
            #expect(response.status == .badRequest)
            #expect(response.headers["Content-Type"]?.hasPrefix("text/html") == true)
            #expect(response.text.contains("open it again from the email"))
        }
        #expect(await harness.app.send(.get, path + "?token=unknown-token").status.code == 410)
        #expect(await AccountFlowTests.form(harness, path, ["token": "unknown-token", "password": "long enough password"]).status.code == 410)
    }

    @Test(
        "Polling a checkout with an id that is not a UUID is 400; an unseen UUID is pending",
        arguments: ["null,null", "123", "6F9619FF-8B86-D011-B42D"])
    func pollNeedsUUID(id: String) async throws {
        let harness = try CheckoutHarness()
        let headers: HTTPHeaders = ["X-Api-Key": CheckoutHarness.apiKey]
        let bad = await harness.app.send(.get, "/api/v1/checkout/" + FormURLEncoding.encode(id) + "?app_user_id=user-1", headers: headers)
        #expect(bad.status == .badRequest)
        #expect(bad.errorCode == "bad_request")
        let unseen = await harness.app.send(.get, "/api/v1/checkout/6F9619FF-8B86-D011-B42D-00CF4FC964FF?app_user_id=user-1", headers: headers)
        #expect(unseen.jsonObject?["status"] as? String == "pending")
    }
}

@Suite("/.well-known for an app that is not configured")
struct WellKnownNotConfiguredTests {
    @Test(
        "A platform with no app configured is a JSON 404 (programs read these files), not an HTML page",
        arguments: [
            "/.well-known/apple-app-site-association", "/.well-known/assetlinks.json"
        ])
    func jsonNotFound(path: String) async throws {
        let app = try TestApp()
        let response = await app.send(.get, path)
        #expect(response.status == .notFound)
        #expect(response.headers["Content-Type"]?.hasPrefix("application/json") == true)
        #expect(response.errorCode == "not_found")
    }
}
