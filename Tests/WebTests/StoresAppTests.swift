import App
import Configuration
import Domain
import Foundation
import HTTPCore
import HTTPRouting
import Logging
import Testing
import UseCases
import TestSupport

@testable import Web
@testable import App

@Suite("Store endpoints for apps, and store configuration")
struct StoresAppTests {
    func gonative(_ harness: StoresHarness, receipt: String, bearer: String?) async -> HTTPResponse {
        var headers: HTTPHeaders = ["X-Api-Key": StoresHarness.apiKey, "Content-Type": "application/json"]
        if let bearer { headers.set("Authorization", "Bearer " + bearer) }
        return await harness.app.send(.post, "/api/v1/iap/gonative", headers: headers, body: #"{"receipt-data":"\#(receipt)"}"#)
    }

    @Test("gonative: a valid receipt is linked to the signed-in account and answered with success")
    func gonativeSuccess() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let (_, token) = try await harness.signedInAccount()
        let end = harness.clock.now.addingTimeInterval(86400)
        harness.apple.addReceipt(
            "MIIGONATIVE", environment: .sandbox,
            answer: .valid(
                bundleID: StoresHarness.bundleID, environment: "Sandbox",
                purchases: [.init(originalTransactionID: "4000000000000001", expiresDate: end)], requestDate: harness.clock.now))
        let response = await gonative(harness, receipt: "MIIGONATIVE", bearer: token)
        #expect(response.status == .ok, "\(response.text)")
        let json = try #require(response.jsonObject)
        #expect(json["success"] as? Bool == true)
        #expect(json["title"] as? String == "Purchase complete")
        #expect((json["message"] as? String)?.contains("premium") == true)
        #expect(json["loadUrl"] as? String == "https://pay.example.com/")
        #expect(StoresHarness.entitlement("premium", in: await harness.entitlements(bearer: token))?["active"] as? Bool == true)
    }

    @Test("gonative: a refused receipt is success false with nothing stored; no bearer is 401")
    func gonativeRefused() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let (_, token) = try await harness.signedInAccount()
        let refused = await gonative(harness, receipt: "GARBAGE", bearer: token)
        #expect(refused.status == .ok)
        #expect(refused.jsonObject?["success"] as? Bool == false)
        #expect(refused.jsonObject?["title"] as? String == "Purchase not verified")
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases") == 0)
        #expect(await gonative(harness, receipt: "GARBAGE", bearer: nil).status == .unauthorized)
        #expect(await gonative(harness, receipt: "GARBAGE", bearer: "not-a-token").status == .unauthorized)
        #expect(harness.apple.receiptRequests.count == 1, "Apple is not asked for unauthenticated calls")
    }

    @Test("products lists config.products with the entitlements each grants")
    func products() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let response = await harness.app.send(.get, "/api/v1/products", headers: ["X-Api-Key": StoresHarness.apiKey])
        #expect(response.status == .ok)
        let products = try #require(response.jsonObject?["products"] as? [[String: Any]])
        #expect(products.map { $0["id"] as? String } == ["com.example.monthly", "com.example.lifetime", "pro_monthly"])
        #expect(products.map { $0["entitlements"] as? [String] } == [["premium"], ["lifetime"], ["premium"]])
        #expect(await harness.app.send(.get, "/api/v1/products").status == .unauthorized)
    }

    @Test("Without store configuration the service starts and the store routes answer 503 not_configured (not retryable) naming the keys")
    func notConfigured() async throws {
        let app = try TestApp()
        let apple = await app.send(.post, "/webhooks/apple", headers: ["Content-Type": "application/json"], body: #"{"signedPayload":"a.b.c"}"#)
        #expect(apple.status == .serviceUnavailable)
        #expect(apple.text.contains("app.ios.bundle_id"))
        let google = await app.send(.post, "/webhooks/google?token=x", body: "{}")
        #expect(google.status == .serviceUnavailable)
        #expect(google.text.contains("google.rtdn_token"))
        let claim = await app.send(
            .post, "/api/v1/iap/google", headers: ["Content-Type": "application/json"], body: #"{"purchase_token":"t","sku":"pro_monthly"}"#)
        #expect(claim.status == .serviceUnavailable)
        for response in [apple, google, claim] {
            // SDKs must not retry a missing setting for ever.
            #expect(response.errorCode == "not_configured")
            #expect((response.jsonObject?["error"] as? [String: Any])?["retryable"] as? Bool == false)
        }
        #expect(app.app.essentials.stores.appleVerifier == nil && app.app.essentials.stores.googlePlay == nil)
    }

    @Test("An unreadable .p8 key, service account or root, or a store key without its app, stops start-up naming the config key")
    func startupErrors() throws {
        let directory = try TemporaryDirectory()
        let ios: [String: Any] = [
            "name": "Example", "scheme": "exampleapp", "ios": ["bundle_id": "com.example.app"], "android": ["package_name": "com.example.app"]
        ]
        try Data("not a key".utf8).write(to: URL(fileURLWithPath: directory.path + "/bad.p8"))
        let badKey: [String: Any] = ["api": ["issuer_id": "i", "key_id": "k", "private_key_path": directory.path + "/bad.p8"]]
        let cases: [([String: Any], String)] = [
            (["app": ios, "apple": badKey], "apple.api.private_key_path"),
            (
                ["app": ios, "apple": ["api": ["issuer_id": "i", "key_id": "k", "private_key_path": directory.path + "/missing.p8"]]],
                "apple.api.private_key_path"
            ),
            (["app": ios, "google": ["service_account_path": directory.path + "/missing.json"]], "google.service_account_path"),
            (["app": ios, "apple": ["root_certificates": [directory.path + "/missing.cer"]]], "apple.root_certificates"),
            (["apple": ["shared_secret": "s"]], "app.ios.bundle_id"),
            (["google": ["rtdn_token": "t"]], "app.android.package_name")
        ]
        for (extra, key) in cases {
            let config = try TollgateConfig.make(directory: directory.path, extra: extra)
            #expect {
                _ = try TollgateApp(config: config, logger: Logger(sink: MemoryLogSink(), minimumLevel: .error))
            } throws: { error in
                (error as? StartupError)?.key == key && !"\(error)".contains("not a key")
            }
        }
    }
}
