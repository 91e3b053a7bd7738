import Domain
import Foundation
import HTTPCore
import Testing
import TestSupport

@testable import Web

/// GoNative's (Median's) own documented shapes (issue 43, items 4–6): Apple's refusal of a
/// receipt logged and returned (`status` and reason, never the receipt), the store page showing
/// what the store returned (`localizedTitle`, `localizedDescription`, `priceFormatted`; the rest
/// unavailable), and `gonative_iap_purchases(data)` defined on the store and account pages.
@Suite("GoNative: Apple's refusal, the store's products, on-device purchases")
struct GoNativeSeedTests {
    @Test(
        "Apple's refusal (status 21003): logged with its status and reason, no receipt bytes, and returned in the reply's error on both receipt routes"
    )
    func refusalLoggedAndReturned() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        harness.apple.addReceipt("MIINOTAUTHENTIC0123456789", environment: .production, answer: .status(21003))
        harness.apple.addReceipt("MIINOTAUTHENTIC0123456789", environment: .sandbox, answer: .status(21003))
        let (_, cookie) = try await GoNativeWebTests.signedInWebView(harness)
        let (_, token) = try await harness.signedInAccount()
        let postUrl = await GoNativeWebTests.post(harness, receipt: "MIINOTAUTHENTIC0123456789", cookie: cookie)
        let api = await harness.app.send(
            .post, "/api/v1/iap/gonative",
            headers: ["Content-Type": "application/json", "X-Api-Key": StoresHarness.apiKey, "Authorization": "Bearer \(token)"],
            body: #"{"receipt-data":"MIINOTAUTHENTIC0123456789"}"#)
        for response in [postUrl, api] {
            #expect(response.status == .ok, "\(response.text)")
            let json = try #require(response.jsonObject)
            #expect(json["success"] as? Bool == false)
            #expect(json["title"] as? String == "Purchase not verified")
            let error = try #require(json["error"] as? [String: Any], "\(response.text)")
            #expect(error["code"] as? String == "invalid_receipt")
            #expect(error["status"] as? Int == 21003)
            #expect((error["message"] as? String)?.contains("could not authenticate the receipt") == true, "\(error)")
            #expect(error["retryable"] as? Bool == false)
        }
        let logged = harness.app.logs.lines.filter { $0.contains("gonative_receipt_refused") }
        #expect(logged.count == 2, "\(logged)")
        #expect(logged.allSatisfy { $0.contains(#""status":21003"#) && $0.contains("could not authenticate") }, "\(logged)")
        #expect(!harness.app.logs.lines.contains { $0.contains("MIINOTAUTHENTIC") }, "the receipt never reaches the log")
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases") == 0)

        // A verified receipt's answer carries no error.
        harness.apple.addReceipt(
            "MIIGOOD", environment: .sandbox,
            answer: .valid(
                bundleID: StoresHarness.bundleID, environment: "Sandbox",
                purchases: [.init(originalTransactionID: "4000000000000077", expiresDate: harness.clock.now.addingTimeInterval(86400))],
                requestDate: harness.clock.now))
        let good = await GoNativeWebTests.post(harness, receipt: "MIIGOOD", cookie: cookie)
        #expect(good.jsonObject?["success"] as? Bool == true && good.jsonObject?["error"] == nil)
    }

    @Test(
        "The store page has a slot for each product's localizedTitle and localizedDescription and a hidden 'unavailable' note; gonative.js fills them from what the store returned"
    )
    func storeShowsWhatTheStoreReturned() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let (_, cookie) = try await GoNativeWebTests.signedInWebView(harness)
        let page = await harness.app.send(.get, "/gonative/store", headers: ["Cookie": cookie])
        #expect(page.status == .ok)
        for product in ["com.example.monthly", "com.example.lifetime", "pro_monthly"] {
            #expect(page.text.contains(#"<span data-title-for="\#(product)">"#))
            #expect(page.text.contains(#"<p class="hint" data-description-for="\#(product)" hidden></p>"#))
            #expect(page.text.contains(#"<p class="hint" data-unavailable-for="\#(product)" hidden>Not available in the store right now.</p>"#))
        }
        let german = await harness.app.send(.get, "/gonative/store", headers: ["Cookie": cookie, "Accept-Language": "de"])
        #expect(german.text.contains("Im Store derzeit nicht erhältlich."))

        let script = await harness.app.send(.get, "/static/gonative.js").text
        for member in ["localizedTitle", "localizedDescription", "priceFormatted", "productID"] {
            #expect(script.contains("product.\(member)"), "\(member)")
        }
        // Not returned by the store: no longer a purchase link, and said so.
        #expect(script.contains(#"button.removeAttribute("href");"#))
        #expect(script.contains(#"button.setAttribute("aria-disabled", "true");"#))
        #expect(script.contains(#"each("[data-unavailable-for]", id, function (note) { note.hidden = false; });"#))
        #expect(script.contains("} else if (listed) {"), "only once the store has answered with its list")
        // The store's words are text, never markup.
        #expect(!script.contains("innerHTML"))
    }

    @Test("gonative_iap_purchases(data) is defined on the store and account pages: it reloads once per set of purchases, never in a loop")
    func onDevicePurchases() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let (_, cookie) = try await GoNativeWebTests.signedInWebView(harness)
        for path in ["/gonative/store", "/account"] {
            let page = await harness.app.send(.get, path, headers: ["Cookie": cookie])
            #expect(page.status == .ok, "\(path)")
            #expect(page.text.contains(#"<script src="/static/gonative.js" defer></script>"#), "\(path)")
        }
        let script = await harness.app.send(.get, "/static/gonative.js").text
        #expect(script.contains("window.gonative_iap_purchases = refreshAfterPurchases;"))
        #expect(script.contains("window.median_iap_purchases = refreshAfterPurchases;"))
        #expect(script.contains("if (window.sessionStorage.getItem(key)) return;"), "the same purchases reload once")
        #expect(script.contains("return; /* no storage"), "without storage it never reloads")
        #expect(script.contains("window.location.reload()"))
    }
}
