import Domain
import Foundation
import HTTPCore
import Testing
import TestSupport

@testable import App
@testable import Web

/// The wiring of "Every buyer brought in" (the rules are `UseCasesTests`' ReminderTests and
/// FunnelTests): a paid, unredeemed checkout gets its reminder with the one-click unsubscribe
/// headers, whose link works once; the funnel's route, its 400 and the histogram on `/metrics`.
@Suite("Reminders and the funnel over HTTP")
struct BuyerFollowUpHTTPTests {
    /// Starts and pays a checkout no app user started (so nothing links it), shows its success page.
    static func paidUnlinked(_ harness: CheckoutHarness, locale: String = "de") async throws -> HTTPResponse {
        let session = try await harness.startCheckout("plan=monthly&email=buyer%40example.com&locale=\(locale)")
        try harness.pay(session)
        let page = await harness.successPage(session)
        #expect(page.status == .ok)
        return page
    }

    /// The path of the (one) reminder's `List-Unsubscribe` URL, read from the raw message (the
    /// header is not quoted-printable: `MailReader` would decode its `=de`).
    static func unsubscribePath(_ harness: CheckoutHarness) throws -> String {
        let directory = harness.app.directory.path + "/mail"
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".eml") }
        let raws = try names.map { try String(contentsOfFile: directory + "/" + $0, encoding: .utf8) }
        let raw = try #require(raws.first { $0.contains("List-Unsubscribe-Post:") })
        let range = try #require(raw.range(of: #"<https://pay\.example\.com/mail/unsubscribe/[^>]+>"#, options: .regularExpression))
        return String(raw[range].dropFirst("<https://pay.example.com".count).dropLast())
    }

    /// Runs the reminder worker and then the outbox, as the running service would within seconds.
    static func remindAndDeliver(_ harness: CheckoutHarness) async {
        await harness.app.app.workers.reminder.runOnce()
        await harness.app.app.workers.outbox.runOnce()
    }

    @Test("A reminder leaves an hour after payment with RFC 8058 headers; its unsubscribe link shows a button, works once, then 404s")
    func reminderAndUnsubscribe() async throws {
        let harness = try CheckoutHarness()
        _ = try await Self.paidUnlinked(harness)
        harness.clock.advance(3599)
        await Self.remindAndDeliver(harness)
        let mail = MailReader(directory: harness.app.directory.path + "/mail")
        #expect(try mail.messages().count == 1, "only the code mail so far")
        harness.clock.advance(1)
        await Self.remindAndDeliver(harness)
        #expect(try mail.messages().count == 2, "the code mail and the reminder")
        let reminder = try #require(try mail.newest(matching: "List-Unsubscribe-Post"))
        #expect(reminder.contains("List-Unsubscribe-Post: List-Unsubscribe=One-Click"))
        #expect(reminder.contains("Erinnerungen abbestellen"), "in the buyer's language")
        let path = try Self.unsubscribePath(harness)
        #expect(reminder.contains("List-Unsubscribe:"))

        let page = await harness.app.send(.get, path)
        #expect(page.status == .ok)
        #expect(path.hasSuffix("?locale=de"), "the link carries the mail's language")
        let form = DOMInspection(page.text).all("form").first
        #expect(form?.attributes["action"] == path && form?.attributes["method"] == "post", "the button posts back to the link")
        #expect(page.text.contains("Erinnerungs-E-Mails abbestellen?"), "the page speaks the mail's language")
        let done = await harness.app.send(
            .post, path, headers: ["Content-Type": "application/x-www-form-urlencoded"], body: "List-Unsubscribe=One-Click")
        #expect(done.status == .ok)
        #expect(done.text.contains(#"id="unsubscribed""#))
        let again = await harness.app.send(
            .post, path, headers: ["Content-Type": "application/x-www-form-urlencoded"], body: "List-Unsubscribe=One-Click")
        let used = await harness.app.send(.get, path)
        let unknown = await harness.app.send(.get, "/mail/unsubscribe/" + String(repeating: "x", count: 43) + "?locale=de")
        #expect(again.status == .notFound && used.status == .notFound && unknown.status == .notFound)
        #expect(used.text == unknown.text, "a used token and one that never existed look the same")

        harness.clock.advance(86_400 - 3600)
        await Self.remindAndDeliver(harness)
        #expect(try mail.messages().count == 2, "unsubscribed: no second reminder")
    }

    @Test("GET /admin/v1/funnel: the fields of API.md, 400 naming the forms, 401 without the token; the histogram counts a redemption once")
    func funnelRoute() async throws {
        let harness = try CheckoutHarness()
        let page = try await Self.paidUnlinked(harness, locale: "en")
        harness.clock.advance(90)
        let code = try #require(CheckoutHarness.code(in: page))
        #expect(await harness.redeem(code).status == .ok)
        let response = await harness.app.send(.get, "/admin/v1/funnel?since=24h", headers: TestApp.adminHeaders)
        #expect(response.status == .ok)
        let json = try #require(response.jsonObject)
        #expect(
            Set(json.keys) == ["since", "paid", "success_page_seen", "redeemed", "redeemed_within", "median_seconds_to_redeem", "unredeemed_over_24h"]
        )
        #expect(json["since"] as? String == "24h")
        #expect(json["paid"] as? Int == 1 && json["success_page_seen"] as? Int == 1 && json["redeemed"] as? Int == 1)
        #expect((json["redeemed_within"] as? [String: Int]) == ["5m": 1, "1h": 1, "24h": 1])
        #expect(json["median_seconds_to_redeem"] as? Int == 90)
        #expect(json["unredeemed_over_24h"] as? Int == 0)
        let defaulted = await harness.app.send(.get, "/admin/v1/funnel", headers: TestApp.adminHeaders)
        #expect(defaulted.jsonObject?["since"] as? String == "7d")

        let bad = await harness.app.send(.get, "/admin/v1/funnel?since=7x", headers: TestApp.adminHeaders)
        #expect(bad.status == .badRequest)
        #expect(bad.errorCode == "bad_request")
        #expect(bad.text.contains("<n>h or <n>d"))
        #expect(await harness.app.send(.get, "/admin/v1/funnel?since=91d", headers: TestApp.adminHeaders).status == .badRequest)
        #expect(await harness.app.send(.get, "/admin/v1/funnel").status == .unauthorized)

        for _ in 0..<2 {
            let metrics = try PrometheusExposition(await harness.app.send(.get, "/metrics").text)
            #expect(metrics.value("tollgate_time_to_redeem_seconds_count") == 1)
            #expect(metrics.value("tollgate_time_to_redeem_seconds_bucket", ["le": "60"]) == 0)
            #expect(metrics.value("tollgate_time_to_redeem_seconds_bucket", ["le": "300"]) == 1)
        }
    }

    @Test("Already entitled: /checkout/start answers 409 (a page with the store's link, or JSON), eligibility says so; allow lets it through")
    func alreadyEntitled() async throws {
        let harness = try CheckoutHarness()
        let session = try await harness.startCheckout()  // app_user_id=user-1
        try harness.pay(session)
        #expect(await harness.successPage(session).status == .ok)

        let page = await harness.app.send(.get, "/checkout/start?plan=monthly&app_user_id=user-1")
        #expect(page.status == .conflict)
        #expect(page.text.contains(#"href="https://pay.example.com/manage""#))
        let json = await harness.app.send(.get, "/checkout/start?plan=monthly&app_user_id=user-1", headers: ["Accept": "application/json"])
        #expect(json.status == .conflict)
        let error = try #require(json.jsonObject?["error"] as? [String: Any])
        #expect(error["code"] as? String == "already_entitled")
        #expect(error["entitlement"] as? String == "premium" && error["store"] as? String == "stripe")
        #expect(error["manage_url"] as? String == "https://pay.example.com/manage")
        #expect(await harness.app.send(.get, "/checkout/start?plan=monthly&app_user_id=user-2").status == .seeOther)

        let key: HTTPHeaders = ["X-Api-Key": CheckoutHarness.apiKey]
        let held = await harness.app.send(.get, "/api/v1/checkout/eligibility?platform=ios&storefront=USA&app_user_id=user-1", headers: key)
        let entitled = try #require(held.jsonObject?["already_entitled"] as? [String: Any])
        #expect(entitled["store"] as? String == "stripe" && entitled["entitlement"] as? String == "premium")
        #expect(Set(entitled.keys) == ["entitlement", "store", "manage_url"], "entitlements and stores only (issue 40)")
        let nobody = await harness.app.send(.get, "/api/v1/checkout/eligibility?platform=ios&storefront=USA&app_user_id=user-2", headers: key)
        #expect(nobody.jsonObject?.keys.contains("already_entitled") == true && nobody.jsonObject?["already_entitled"] is NSNull)
        let plain = await harness.app.send(.get, "/api/v1/checkout/eligibility?platform=ios&storefront=USA", headers: key)
        #expect(plain.jsonObject?.keys.contains("already_entitled") == false)

        let allowing = try CheckoutHarness(extra: ["checkout": ["on_already_entitled": "allow"]])
        let paid = try await allowing.startCheckout()
        try allowing.pay(paid)
        _ = await allowing.successPage(paid)
        #expect(await allowing.app.send(.get, "/checkout/start?plan=monthly&app_user_id=user-1").status == .seeOther)
    }
}
