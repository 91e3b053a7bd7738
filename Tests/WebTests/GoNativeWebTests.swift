import Domain
import Foundation
import HTTPCore
import Testing
import Templating
import TestSupport

@testable import App
@testable import Web

/// A GoNative (Median) app configured exactly as GoNative's docs say: its `productsUrl`, its
/// store page in the web view, and its `postUrl`, which receives `{"receipt-data"}` with the web
/// view's cookies (API.md "The buyer's web account").
@Suite("GoNative apps through their own request shapes")
struct GoNativeWebTests {
    /// A web session for a new account, as the sign-in form leaves it; returns the account id and
    /// the `Cookie` header the web view sends.
    static func signedInWebView(_ harness: StoresHarness) async throws -> (accountID: String, cookie: String) {
        let services = harness.app.app.essentials
        let now = harness.clock.now
        return try await services.database.write { connection in
            let account = try AccountRepository.create(email: "buyer@example.com", secrets: services.secrets, on: connection, now: now)
            let issued = try WebSessionRepository.issue(accountID: account.id, on: connection, now: now)
            return (account.id, WebCookies.session + "=" + issued.cookieValue)
        }
    }

    /// What GoNative's IAP plug-in posts to the postUrl.
    static func post(_ harness: StoresHarness, receipt: String, cookie: String?, language: String? = nil) async -> HTTPResponse {
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        if let cookie { headers.set("Cookie", cookie) }
        if let language { headers.set("Accept-Language", language) }
        return await harness.app.send(.post, "/gonative/receipt", headers: headers, body: #"{"receipt-data":"\#(receipt)"}"#)
    }

    func validReceipt(_ harness: StoresHarness, _ receipt: String) {
        harness.apple.addReceipt(
            receipt, environment: .sandbox,
            answer: .valid(
                bundleID: StoresHarness.bundleID, environment: "Sandbox",
                purchases: [.init(originalTransactionID: "4000000000000009", expiresDate: harness.clock.now.addingTimeInterval(86400))],
                requestDate: harness.clock.now))
    }

    @Test("productsUrl: exactly {\"products\": [ids]} from config, strings only, no key needed")
    func productsShape() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let response = await harness.app.send(.get, "/gonative/products.json")
        #expect(response.status == .ok)
        #expect(response.headers["Content-Type"]?.hasPrefix("application/json") == true)
        #expect(response.text == #"{"products":["com.example.monthly","com.example.lifetime","pro_monthly"]}"#)
    }

    @Test("The store page: signed out it leads to sign-in and back; signed in it has purchase and restore buttons and the price script")
    func storePage() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let signedOut = await harness.app.send(.get, "/gonative/store")
        #expect(signedOut.status == .seeOther && signedOut.headers["Location"] == "/account/sign-in?next=/gonative/store")
        let (_, cookie) = try await Self.signedInWebView(harness)
        let page = await harness.app.send(.get, "/gonative/store", headers: ["Cookie": cookie])
        #expect(page.status == .ok)
        for product in ["com.example.monthly", "com.example.lifetime", "pro_monthly"] {
            #expect(page.text.contains(#"href="gonative://purchase/\#(product)""#))
            #expect(page.text.contains(#"data-price-for="\#(product)""#))
        }
        #expect(page.text.contains(#"href="gonative://iap/restorePurchases""#))
        #expect(page.text.contains("within a minute"))
        #expect(page.text.contains(#"src="/static/gonative.js""#))
        let script = await harness.app.send(.get, "/static/gonative.js")
        #expect(script.status == .ok && script.text.contains("gonative_info_ready") && script.text.contains("priceFormatted"))
    }

    @Test("Without JavaScript each product's button is told apart (display name and product id), and the canMakePurchases sentence waits hidden")
    func storePageTellsProductsApart() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let (_, cookie) = try await Self.signedInWebView(harness)
        let page = await harness.app.send(.get, "/gonative/store", headers: ["Cookie": cookie])
        // The visible text of each purchase button, as a browser without JavaScript shows it.
        var labels: [String: String] = [:]
        for product in ["com.example.monthly", "com.example.lifetime", "pro_monthly"] {
            let start = try #require(page.text.range(of: #"data-product-id="\#(product)">"#))
            let end = try #require(page.text.range(of: "</a>", range: start.upperBound..<page.text.endIndex))
            let label = String(page.text[start.upperBound..<end.lowerBound])
                .replacingOccurrences(of: "<[^>]+>", with: "", options: .regularExpression).trimmingCharacters(in: .whitespaces)
            labels[product] = label
            #expect(label.contains(product), "the button names its product id: \(label)")
        }
        #expect(labels["com.example.monthly"]?.hasPrefix("Premium") == true && labels["pro_monthly"]?.hasPrefix("Premium") == true)
        #expect(Set(labels.values).count == 3, "two products of one entitlement read the same: \(labels)")
        #expect(page.text.contains(#"id="cannot-buy" role="status" hidden>"#))
        let script = await harness.app.send(.get, "/static/gonative.js")
        #expect(script.text.contains("canMakePurchases === false") && script.text.contains("cannot-buy"))
    }

    @Test("postUrl with the web view's cookie: verified, linked to the signed-in account, success with loadUrl {base}/account")
    func receiptWithCookie() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let (accountID, cookie) = try await Self.signedInWebView(harness)
        validReceipt(harness, "MIIWEBVIEW")
        let response = await Self.post(harness, receipt: "MIIWEBVIEW", cookie: cookie)
        #expect(response.status == .ok)
        let json = try #require(response.jsonObject)
        #expect(json["success"] as? Bool == true)
        #expect(json["title"] as? String == "Purchase complete")
        #expect(json["loadUrl"] as? String == "https://pay.example.com/account")
        let purchase = try #require(try await harness.purchase(.appStore, "4000000000000009"))
        #expect(purchase.accountID == accountID)
        let again = await Self.post(harness, receipt: "MIIWEBVIEW", cookie: cookie)
        #expect(again.jsonObject?["success"] as? Bool == true, "GoNative posts again at the next launch: the same answer")
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases") == 1)
    }

    @Test("postUrl with a receipt of an expired subscription and a non-consumable: both stored for the account, which is unlocked")
    func receiptWithEveryPurchase() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let (accountID, cookie) = try await Self.signedInWebView(harness)
        let now = harness.clock.now
        harness.apple.addReceipt(
            "MIIBOTH", environment: .sandbox,
            answer: .receipt(
                bundleID: StoresHarness.bundleID, environment: "Sandbox",
                latestReceiptInfo: [
                    .init(
                        originalTransactionID: "4000000000000030", purchaseDate: now.addingTimeInterval(-40 * 86400),
                        expiresDate: now.addingTimeInterval(-10 * 86400), autoRenewStatus: 0)
                ],
                inApp: [
                    .init(
                        productID: "com.example.lifetime", transactionID: "4000000000000040", originalTransactionID: "4000000000000040",
                        purchaseDate: now.addingTimeInterval(-300 * 86400), autoRenewStatus: nil)
                ],
                requestDate: now))
        let response = await Self.post(harness, receipt: "MIIBOTH", cookie: cookie)
        #expect(response.status == .ok)
        #expect(response.jsonObject?["success"] as? Bool == true, "the non-consumable still grants access: \(response.text)")
        #expect(try await harness.purchase(.appStore, "4000000000000030")?.accountID == accountID)
        #expect(try await harness.purchase(.appStore, "4000000000000040")?.accountID == accountID)
    }

    @Test("postUrl without a cookie (or a stale one): 200, success false, loadUrl to sign in; Apple is not asked")
    func receiptSignedOut() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        validReceipt(harness, "MIIWEBVIEW")
        for cookie in [nil, WebCookies.session + "=web_unknown.secret"] {
            let response = await Self.post(harness, receipt: "MIIWEBVIEW", cookie: cookie)
            #expect(response.status == .ok)
            #expect(response.jsonObject?["success"] as? Bool == false)
            #expect(response.jsonObject?["title"] as? String == "Sign in first")
            #expect(response.jsonObject?["loadUrl"] as? String == "https://pay.example.com/account/sign-in?next=/gonative/store")
        }
        #expect(harness.apple.receiptRequests.isEmpty)
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases") == 0)
    }

    @Test("postUrl with a receipt Apple refuses: 200, success false, nothing stored; a body without a receipt is 400")
    func invalidReceipt() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let (_, cookie) = try await Self.signedInWebView(harness)
        let refused = await Self.post(harness, receipt: "GARBAGE", cookie: cookie)
        #expect(refused.status == .ok)
        #expect(refused.jsonObject?["success"] as? Bool == false)
        #expect(refused.jsonObject?["title"] as? String == "Purchase not verified")
        for body in ["{}", #"{"receipt-data":""}"#, "", "not json"] {
            let malformed = await harness.app.send(
                .post, "/gonative/receipt", headers: ["Content-Type": "application/json", "Cookie": cookie], body: body)
            #expect(
                malformed.status == .badRequest && malformed.errorCode == "bad_request", "not GoNative's request (\(body)): 400 in API.md's shape")
        }
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases") == 0)
    }

    @Test(
        "Every postUrl answer's loadUrl is a URL string: refused and store down → the store page, expired → the store page, another account's → /account"
    )
    func loadURLAlwaysAString() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let (_, cookie) = try await Self.signedInWebView(harness)
        harness.apple.addReceipt("MIIDOWN", environment: .sandbox, answer: .status(21100))
        harness.apple.addReceipt(
            "MIIENDED", environment: .sandbox,
            answer: .valid(
                bundleID: StoresHarness.bundleID, environment: "Sandbox",
                purchases: [
                    .init(
                        originalTransactionID: "4000000000000010", purchaseDate: harness.clock.now.addingTimeInterval(-40 * 86400),
                        expiresDate: harness.clock.now.addingTimeInterval(-10 * 86400))
                ],
                requestDate: harness.clock.now))
        let store = "https://pay.example.com/gonative/store"
        for (receipt, title, loadURL) in [
            ("GARBAGE", "Purchase not verified", store), ("MIIDOWN", "Purchase not confirmed yet", store), ("MIIENDED", "Purchase expired", store)
        ] {
            let response = await Self.post(harness, receipt: receipt, cookie: cookie)
            #expect(response.status == .ok)
            #expect(response.jsonObject?["title"] as? String == title, "\(response.text)")
            #expect(response.jsonObject?["loadUrl"] as? String == loadURL, "\(receipt): \(response.text)")
        }
        // The same receipt posted by another signed-in buyer: a web view cannot switch accounts, so it stays where it is.
        validReceipt(harness, "MIIMINE")
        #expect(await Self.post(harness, receipt: "MIIMINE", cookie: cookie).jsonObject?["success"] as? Bool == true)
        let services = harness.app.app.essentials
        let now = harness.clock.now
        let other = try await services.database.write { connection in
            let account = try AccountRepository.create(email: "other@example.com", secrets: services.secrets, on: connection, now: now)
            return WebCookies.session + "=" + (try WebSessionRepository.issue(accountID: account.id, on: connection, now: now)).cookieValue
        }
        let taken = await Self.post(harness, receipt: "MIIMINE", cookie: other)
        #expect(taken.jsonObject?["title"] as? String == "Purchase belongs to another account", "\(taken.text)")
        #expect(taken.jsonObject?["loadUrl"] as? String == "https://pay.example.com/account")
    }

    @Test("postUrl while the App Store is down: 200, success false (GoNative posts again at the next launch), and the retry succeeds")
    func storeOutage() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let (accountID, cookie) = try await Self.signedInWebView(harness)
        harness.apple.addReceipt("MIIOUTAGE", environment: .sandbox, answer: .status(21100))
        let down = await Self.post(harness, receipt: "MIIOUTAGE", cookie: cookie)
        #expect(down.status == .ok)
        #expect(down.jsonObject?["success"] as? Bool == false)
        #expect(down.jsonObject?["title"] as? String == "Purchase not confirmed yet")
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases") == 0)

        validReceipt(harness, "MIIOUTAGE")
        let later = await Self.post(harness, receipt: "MIIOUTAGE", cookie: cookie)
        #expect(later.jsonObject?["success"] as? Bool == true)
        #expect(try await harness.purchase(.appStore, "4000000000000009")?.accountID == accountID)
    }

    @Test("The app's /api/v1/iap/gonative also takes the web session cookie when no bearer is sent")
    func apiTakesCookie() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let (accountID, cookie) = try await Self.signedInWebView(harness)
        validReceipt(harness, "MIIWEBVIEW")
        let response = await harness.app.send(
            .post, "/api/v1/iap/gonative", headers: ["X-Api-Key": StoresHarness.apiKey, "Content-Type": "application/json", "Cookie": cookie],
            body: #"{"receipt-data":"MIIWEBVIEW"}"#)
        #expect(response.status == .ok && response.jsonObject?["success"] as? Bool == true, "\(response.text)")
        #expect(try await harness.purchase(.appStore, "4000000000000009")?.accountID == accountID)
    }
}

extension GoNativeWebTests {
    @Test(
        "The postUrl's title and message, shown in the web view, follow the buyer's language; an expiry date is written its way",
        arguments: ["de", "fr", "es", "ja"])
    func answersInTheBuyersLanguage(language: String) async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let phrases = try ShippedLanguagesTests.englishPhrases(unlike: language)
        let english = try #require(try MessageCatalog.load(directories: [PackagePaths.templates + "/locales"])["en"])
        let englishTitles = english.keys.filter { $0.hasPrefix("gonative.reply.") && $0.hasSuffix(".title") }.compactMap { english[$0]?.texts.first }
        #expect(englishTitles.count == 6)
        let signedOut = await Self.post(harness, receipt: "MIIANY", cookie: nil, language: language)
        let (_, cookie) = try await Self.signedInWebView(harness)
        let refused = await Self.post(harness, receipt: "GARBAGE", cookie: cookie, language: language)
        validReceipt(harness, "MIIWEBVIEW")
        let complete = await Self.post(harness, receipt: "MIIWEBVIEW", cookie: cookie, language: language)
        #expect(complete.jsonObject?["success"] as? Bool == true)
        for response in [signedOut, refused, complete] {
            let json = try #require(response.jsonObject)
            let title = try #require(json["title"] as? String), message = try #require(json["message"] as? String)
            #expect(!englishTitles.contains(title), "\(language): \(title)")
            #expect(phrases.filter { title.contains($0) || message.contains($0) }.isEmpty, "\(language): \(title) / \(message)")
            #expect(!message.contains("App Store did not") && !message.contains("Sign in to your"))
        }
        let message = try #require(complete.jsonObject?["message"] as? String)
        #expect(message.contains("premium"), "\(message)")
        let until = LocaleFormat.dateTime(harness.clock.now.addingTimeInterval(86400), language: language)
        #expect(message.contains(until), "the expiry the buyer's way (\(until)): \(message)")
    }
}
