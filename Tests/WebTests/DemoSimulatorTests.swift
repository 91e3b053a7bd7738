import Configuration
import Crypto
import Foundation
import HTTPCore
import HTTPRouting
import Integrations
import Logging
import StripeSimulator
import Synchronization
import TestSupport
import Testing

@testable import App

/// Demo mode's Stripe simulator through the real service: the hosted page's three buttons, the
/// webhooks it signs, and its absence when a real Stripe key is configured.
@Suite("Stripe simulator (demo mode)", .serialized)
struct DemoSimulatorTests {
    @Test("Decline issues no code: 402 page with the reason, the session stays open, the success page shows no code")
    func declineGivesNoCode() async throws {
        let demo = try DemoHarness()
        let sessionID = try await demo.startCheckout()
        let declined = await demo.submit(sessionID, choice: "decline")
        #expect(declined.status.code == 402)
        #expect(declined.text.contains("declined"))
        #expect(declined.text.contains(#"id="demo-pay""#), "the form is offered again")
        let success = await demo.successPage(sessionID)
        #expect(CheckoutHarness.code(in: success) == nil)
        #expect(demo.simulator.hostedCheckout(id: sessionID)?.isOpen == true)
        await demo.stop()
    }

    @Test(
        "Pay later: the session completes unpaid (no code), then the delayed checkout.session.async_payment_succeeded issues the code",
        .timeLimit(.minutes(1)))
    func payLaterGivesTheCodeOnceTheDelayedEventArrives() async throws {
        let demo = try DemoHarness(payLaterDelay: .seconds(3))
        let sessionID = try await demo.startCheckout()
        let later = await demo.submit(sessionID, choice: "later")
        #expect(later.status == .seeOther)
        #expect(later.headers["Location"]?.hasSuffix("/checkout/success?session_id=\(sessionID)") == true)
        #expect(CheckoutHarness.code(in: await demo.successPage(sessionID)) == nil, "no code before the payment clears")
        var code: String?
        for _ in 0..<100 where code == nil {
            try await Task.sleep(for: .milliseconds(100))
            code = CheckoutHarness.code(in: await demo.successPage(sessionID))
        }
        #expect(code != nil, "the code appears once the payment cleared")
        // The success page may read the paid session from the simulator before the event lands.
        var delivered = false
        for _ in 0..<100 where !delivered {
            delivered = demo.app.logs.lines.contains { $0.contains("stripe_webhook") && $0.contains("checkout.session.async_payment_succeeded") }
            if !delivered { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(delivered, "checkout.session.async_payment_succeeded reached /webhooks/stripe")
        await demo.stop()
    }

    @Test("Paying redirects to success_url after the webhooks were applied; a second submit of the same page changes nothing")
    func payRedirectsAfterTheEvents() async throws {
        let demo = try DemoHarness()
        let sessionID = try await demo.startCheckout(email: "prefill@example.com")
        let page = await demo.app.send(.get, StripeSimulator.checkoutPath + sessionID)
        #expect(page.status == .ok)
        #expect(page.text.contains("Demo: no real payment"))
        #expect(page.text.contains(#"value="prefill@example.com""#))
        let paid = await demo.submit(sessionID, choice: "pay")
        #expect(paid.status == .seeOther)
        for type in ["checkout.session.completed", "customer.subscription.created", "invoice.paid"] {
            #expect(
                demo.app.logs.lines.joined(separator: "\n").contains(#""type":"\#(type)","outcome":"applied""#), "\(type) applied by /webhooks/stripe"
            )
        }
        #expect(CheckoutHarness.code(in: await demo.successPage(sessionID)) != nil)
        let again = await demo.submit(sessionID, choice: "pay")
        #expect(again.status == .seeOther)
        let wrongToken = await demo.submit(try await demo.startCheckout(), choice: "pay", token: "forged")
        #expect(wrongToken.status == .forbidden)
        await demo.stop()
    }

    @Test("The simulator's API is Stripe's: Bearer demo key or 401 in Stripe's error shape; unknown ids are resource_missing")
    func apiAuthenticationAndErrors() async throws {
        let demo = try DemoHarness()
        let anonymous = await demo.app.send(.get, "/demo/stripe/v1/customers")
        #expect(anonymous.status == .unauthorized)
        #expect(((anonymous.jsonObject?["error"] as? [String: Any])?["type"] as? String) == "invalid_request_error")
        let key: HTTPHeaders = ["Authorization": "Bearer \(demo.simulator.keys.apiKey)"]
        let missing = await demo.app.send(.get, "/demo/stripe/v1/checkout/sessions/cs_test_nope", headers: key)
        #expect(missing.status == .notFound)
        #expect(((missing.jsonObject?["error"] as? [String: Any])?["code"] as? String) == "resource_missing")
        let promotions = await demo.app.send(.get, "/demo/stripe/v1/promotion_codes", headers: key)
        #expect(promotions.jsonObject?["object"] as? String == "list")
        // A locale Stripe Checkout does not have is refused, as Stripe refuses it; one it has is taken.
        var form = key
        form.set("Content-Type", "application/x-www-form-urlencoded")
        let session = "mode=payment&line_items[0][price]=price_demo&line_items[0][quantity]=1&success_url=http%3A%2F%2Flocalhost%2Fok&locale="
        let klingon = await demo.app.send(.post, "/demo/stripe/v1/checkout/sessions", headers: form, body: session + "tlh")
        #expect(klingon.status == .badRequest)
        #expect(((klingon.jsonObject?["error"] as? [String: Any])?["param"] as? String) == "locale")
        #expect(await demo.app.send(.post, "/demo/stripe/v1/checkout/sessions", headers: form, body: session + "fr").status == .ok)
        await demo.stop()
    }

    @Test("Every webhook the simulator sends passes Tollgate's unchanged StripeWebhookVerifier; a changed byte does not")
    func signaturesPassTheRealVerifier() async throws {
        let recorder = RecordingHTTPClient()
        let keys = try SimulatorKeys(secretKey: "demo-secret-key-0123456789abcdef0123456789")
        let simulator = StripeSimulator(
            keys: keys, publicBaseURL: "http://localhost:8080", serviceURL: { "http://127.0.0.1:1" }, http: recorder,
            logger: Logger(sink: MemoryLogSink()))
        let create = HTTPRequest(
            method: .post, target: "/v1/checkout/sessions",
            headers: ["Authorization": "Bearer \(keys.apiKey)", "Content-Type": "application/x-www-form-urlencoded"],
            body: Array(
                "mode=subscription&line_items[0][price]=price_demo&line_items[0][quantity]=1&success_url=http%3A%2F%2Flocalhost%3A8080%2Fok".utf8))
        let created = await simulator.respond(to: create, path: "/v1/checkout/sessions")
        let sessionID = try #require(created.jsonObject?["id"] as? String)
        let token = try #require(simulator.hostedCheckout(id: sessionID)?.formToken)
        _ = try await simulator.submit(sessionID: sessionID, formToken: token, email: "buyer@example.com", choice: .pay)

        let sent = recorder.requests
        #expect(sent.map(\.url.path) == Array(repeating: "/webhooks/stripe", count: 3))
        var types: [String] = []
        for request in sent {
            let header = request.headers.first { $0.name == "Stripe-Signature" }?.value
            let event = try StripeWebhookVerifier(secret: keys.webhookSecret).verifiedEvent(
                payload: request.body, signatureHeader: header, now: Date())
            types.append(event.type)
            var tampered = request.body
            tampered[tampered.count / 2] ^= 0x01
            #expect(throws: (any Error).self) {
                try StripeWebhookVerifier(secret: keys.webhookSecret).verifiedEvent(payload: tampered, signatureHeader: header, now: Date())
            }
        }
        #expect(types == ["checkout.session.completed", "customer.subscription.created", "invoice.paid"])
    }

    @Test("StripeSignature reproduces the signatures of Stripe's shared vectors")
    func signatureMatchesStripeVectors() throws {
        struct Case: Decodable {
            let name: String; let secret: String; let timestamp: Int; let payload: String; let header: String; let expect: String
        }
        let cases = try JSONDecoder().decode([Case].self, from: Data(SharedVectors.bytes("stripe/webhook_vectors.json")))
        let ok = cases.filter { $0.expect == "ok" && $0.header.hasPrefix("t=") }
        #expect(!ok.isEmpty)
        for testCase in ok {
            let header = try StripeSignature.header(body: Array(testCase.payload.utf8), timestamp: testCase.timestamp, secret: testCase.secret)
            let v1 = String(header.split(separator: ",")[1])
            #expect(testCase.header.split(separator: ",").map(String.init).contains(v1), "\(testCase.name)")
        }
    }

    @Test("With a real stripe.secret_key the simulator's routes do not exist (404) and the home page has no demo purchase")
    func unreachableWithARealKey() async throws {
        let app = try TestApp(extra: [
            "stripe": ["secret_key": "sk_test_real_account_key", "webhook_secret": "whsec_real"],
            "plans": ["demo": ["price_id": "price_demo_placeholder", "mode": "subscription"]]
        ])
        #expect(app.app.stripeSimulator == nil)
        for path in ["/demo/checkout/cs_test_abc", "/demo/stripe/v1/customers", "/demo/stripe/v1/checkout/sessions/cs_test_abc"] {
            #expect(await app.send(.get, path).status == .notFound, "\(path)")
        }
        #expect(await app.send(.post, "/demo/checkout/cs_test_abc", body: "choice=pay").status == .notFound)
        #expect(!(await app.send(.get, "/").text.contains("demo-buy")))
    }
}

/// Records outbound requests and answers 200 (the simulator's webhooks, without a server).
final class RecordingHTTPClient: OutboundHTTPClient {
    private let recorded = Mutex<[OutboundRequest]>([])
    var requests: [OutboundRequest] { recorded.withLock { $0 } }

    func send(_ request: OutboundRequest) async throws -> OutboundResponse {
        recorded.withLock { $0.append(request) }
        return OutboundResponse(status: 200, body: Array(#"{"received":true}"#.utf8))
    }
}

extension DemoSimulatorTests {
    @Test(
        "The hosted page speaks the session's locale, as Stripe's does, whatever the browser says; its refusals too",
        arguments: ["de", "fr", "es", "ja"])
    func hostedPageSpeaksTheLocale(language: String) async throws {
        let demo = try DemoHarness()
        let english: HTTPHeaders = ["Accept-Language": "en"]
        let started = await demo.app.send(.get, "/checkout/start?plan=demo&app_user_id=demo-user&locale=\(language)", headers: english)
        let location = try #require(started.headers["Location"])
        let sessionID = String(location.split(separator: "/").last ?? "")
        #expect(demo.simulator.hostedCheckout(id: sessionID)?.locale == language)
        let phrases = try ShippedLanguagesTests.englishPhrases(unlike: language)
        let page = await demo.app.send(.get, StripeSimulator.checkoutPath + sessionID, headers: english)
        #expect(page.status == .ok && page.text.contains(#"<html lang="\#(language)" dir="ltr">"#))
        #expect(phrases.filter { page.text.contains($0) }.isEmpty, "\(phrases.filter { page.text.contains($0) })")
        let declined = await demo.submit(sessionID, choice: "decline")
        #expect(declined.status.code == 402 && declined.text.contains(#"lang="\#(language)""#))
        #expect(phrases.filter { declined.text.contains($0) }.isEmpty, "\(phrases.filter { declined.text.contains($0) })")
        #expect(!declined.text.contains("declined"), "the decline is the catalog's, not an English sentence")
        let noEmail = await demo.submit(sessionID, choice: "pay", email: "nobody")
        #expect(noEmail.status == .badRequest && !noEmail.text.contains("Enter an email address"))
        #expect(phrases.filter { noEmail.text.contains($0) }.isEmpty)
        await demo.stop()
    }

    @Test("Without ?locale= the browser that started the checkout chooses, Stripe gets it, and the hosted page keeps it")
    func hostedPageKeepsTheStartingBrowsersLanguage() async throws {
        let demo = try DemoHarness()
        let started = await demo.app.send(.get, "/checkout/start?plan=demo&app_user_id=demo-user", headers: ["Accept-Language": "ja, en;q=0.5"])
        let sessionID = String(try #require(started.headers["Location"]).split(separator: "/").last ?? "")
        #expect(demo.simulator.hostedCheckout(id: sessionID)?.locale == "ja")
        let page = await demo.app.send(.get, StripeSimulator.checkoutPath + sessionID, headers: ["Accept-Language": "en"])
        #expect(page.text.contains(#"<html lang="ja""#) && page.text.contains("デモ決済"))
        await demo.stop()
    }
}
