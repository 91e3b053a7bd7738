import Foundation
import HTTPCore
import HTTPRouting
import Integrations
import Testing
import TestSupport

@Suite("Stripe client against the fake Stripe")
struct StripeClientTests {
    static func client(_ fake: FakeStripe, secretKey: String? = nil) -> StripeClient {
        StripeClient(secretKey: secretKey ?? fake.secretKey, apiBase: fake.baseURL, http: URLSessionHTTPClient(service: "stripe"))
    }

    static let metadata = [
        "utm_source": "newsletter",
        "campaign_note": "spring sale & more = 50% [test]",
        "ply_placement_id": "café ☕ +1",
        "checkout_context_id": "3f1b2c4d-0000-4000-8000-000000000001"
    ]

    static func subscriptionRequest(metadata: [String: String] = metadata) -> CheckoutSessionRequest {
        CheckoutSessionRequest(
            mode: .subscription, priceID: "price_123",
            successURL: "https://pay.example.com/checkout/success?session_id={CHECKOUT_SESSION_ID}",
            cancelURL: "https://pay.example.com/checkout/cancel", clientReferenceID: "user 42",
            customerEmail: "buyer+1@example.com", metadata: metadata, allowPromotionCodes: true)
    }

    @Test("A subscription checkout sends every parameter with Stripe's nested encoding")
    func createSubscriptionCheckout() async throws {
        let fake = try FakeStripe()
        defer { Task { await fake.stop() } }
        let session = try await Self.client(fake).createCheckoutSession(Self.subscriptionRequest(), idempotencyKey: "checkout-ctx-1")

        let received = try #require(fake.sessions.first)
        #expect(fake.sessions.count == 1)
        #expect(received.mode == "subscription")
        #expect(received.priceID == "price_123")
        #expect(received.quantity == 1)
        #expect(received.successURL == "https://pay.example.com/checkout/success?session_id={CHECKOUT_SESSION_ID}")
        #expect(received.cancelURL == "https://pay.example.com/checkout/cancel")
        #expect(received.clientReferenceID == "user 42")
        #expect(received.customerEmail == "buyer+1@example.com")
        #expect(received.allowPromotionCodes == true)
        #expect(received.metadata == Self.metadata)
        #expect(received.subscriptionMetadata == Self.metadata)
        #expect(received.paymentIntentMetadata.isEmpty)
        #expect(received.parameters["payment_intent_data"] == nil)
        #expect(received.parameters["line_items"]?[0]?["price"]?.string == "price_123")
        #expect(received.idempotencyKey == "checkout-ctx-1")
        // The raw encoding: literal brackets in keys, %20 for spaces, everything else escaped.
        #expect(received.rawBody.contains("&subscription_data[metadata][utm_source]=newsletter"))
        #expect(received.rawBody.hasPrefix("mode=subscription&line_items[0][price]=price_123&line_items[0][quantity]=1&"))
        #expect(received.rawBody.contains("client_reference_id=user%2042&"))
        #expect(received.rawBody.contains("customer_email=buyer%2B1%40example.com&"))
        #expect(received.rawBody.contains("metadata[campaign_note]=spring%20sale%20%26%20more%20%3D%2050%25%20%5Btest%5D"))
        #expect(received.rawBody.contains("success_url=https%3A%2F%2Fpay.example.com%2Fcheckout%2Fsuccess%3Fsession_id%3D%7BCHECKOUT_SESSION_ID%7D&"))

        #expect(session.id == received.id)
        #expect(session.id.hasPrefix("cs_test_"))
        #expect(session.url == "https://checkout.stripe.com/c/pay/\(session.id)")
        #expect(session.mode == .subscription)
        #expect(session.status == .open)
        #expect(session.paymentStatus == .unpaid)
        #expect(!session.isPaid)
        #expect(session.clientReferenceID == "user 42")
        #expect(session.metadata == Self.metadata)
    }

    @Test("The buyer's language goes to Stripe as locale: Stripe's own tag, else its primary language, else auto")
    func locale() async throws {
        #expect(CheckoutSessionRequest.stripeLocale(for: "de") == "de")
        #expect(CheckoutSessionRequest.stripeLocale(for: "pt-BR") == "pt-BR")
        #expect(CheckoutSessionRequest.stripeLocale(for: "fr-BE") == "fr")
        #expect(CheckoutSessionRequest.stripeLocale(for: "ar") == "auto")
        let fake = try FakeStripe()
        defer { Task { await fake.stop() } }
        var request = Self.subscriptionRequest()
        request.locale = CheckoutSessionRequest.stripeLocale(for: "ja")
        _ = try await Self.client(fake).createCheckoutSession(request, idempotencyKey: "checkout-locale")
        #expect(fake.sessions.first?.parameters["locale"]?.string == "ja")
        request.locale = "klingon"
        await #expect {
            _ = try await Self.client(fake).createCheckoutSession(request, idempotencyKey: "checkout-locale-2")
        } throws: { ($0 as? StripeError)?.apiError != nil }
    }

    @Test("Headers: Bearer secret key, pinned Stripe-Version, Idempotency-Key, form content type")
    func headers() async throws {
        let fake = try FakeStripe()
        defer { Task { await fake.stop() } }
        _ = try await Self.client(fake).createCheckoutSession(Self.subscriptionRequest(), idempotencyKey: "key-abc")
        let request = try #require(fake.receivedRequests.first)
        #expect(request.method == .post)
        #expect(request.path == "/v1/checkout/sessions")
        #expect(request.headers["Authorization"] == "Bearer \(fake.secretKey)")
        #expect(request.headers["Stripe-Version"] == "2025-03-31.basil")
        #expect(StripeClient.apiVersion == "2025-03-31.basil")
        #expect(request.headers["Idempotency-Key"] == "key-abc")
        #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded")
    }

    @Test("A payment checkout copies metadata to payment_intent_data, not subscription_data")
    func createPaymentCheckout() async throws {
        let fake = try FakeStripe()
        defer { Task { await fake.stop() } }
        var request = Self.subscriptionRequest(metadata: ["utm_campaign": "launch"])
        request.mode = .payment
        request.clientReferenceID = nil
        request.customerEmail = nil
        request.allowPromotionCodes = nil
        let session = try await Self.client(fake).createCheckoutSession(request, idempotencyKey: "pay-1")
        let received = try #require(fake.session(id: session.id))
        #expect(received.mode == "payment")
        #expect(received.paymentIntentMetadata == ["utm_campaign": "launch"])
        #expect(received.parameters["subscription_data"] == nil)
        #expect(received.parameters["client_reference_id"] == nil)
        #expect(received.parameters["customer_email"] == nil)
        #expect(received.parameters["allow_promotion_codes"] == nil)
        #expect(session.mode == .payment)
    }

    @Test("The same Idempotency-Key returns the same session; another key makes another; other parameters are refused")
    func idempotency() async throws {
        let fake = try FakeStripe()
        defer { Task { await fake.stop() } }
        let client = Self.client(fake)
        let first = try await client.createCheckoutSession(Self.subscriptionRequest(), idempotencyKey: "same")
        let again = try await client.createCheckoutSession(Self.subscriptionRequest(), idempotencyKey: "same")
        #expect(first == again)
        #expect(fake.sessions.count == 1)
        let other = try await client.createCheckoutSession(Self.subscriptionRequest(), idempotencyKey: "other")
        #expect(other.id != first.id)
        #expect(fake.sessions.count == 2)
        await #expect {
            _ = try await client.createCheckoutSession(Self.subscriptionRequest(metadata: ["x": "y"]), idempotencyKey: "same")
        } throws: { error in
            guard let apiError = (error as? StripeError)?.apiError else { return false }
            return apiError.type == "idempotency_error" && apiError.httpStatus == 400 && !apiError.isResourceMissing
        }
    }

    @Test("A wrong secret key is a 401 StripeError.api that does not echo the key")
    func wrongKey() async throws {
        let fake = try FakeStripe()
        defer { Task { await fake.stop() } }
        let key = "sk_test_wrong_key_0123456789"
        await #expect {
            _ = try await Self.client(fake, secretKey: key).createCheckoutSession(Self.subscriptionRequest(), idempotencyKey: "k")
        } throws: { error in
            guard let apiError = (error as? StripeError)?.apiError else { return false }
            return apiError.httpStatus == 401 && apiError.isAuthenticationFailure && apiError.message.hasPrefix("Invalid API Key")
                && !apiError.description.contains(key)
        }
        #expect(fake.sessions.isEmpty)
    }

    @Test("Retrieve a completed subscription session: subscription as an id, or expanded")
    func retrieveSession() async throws {
        let fake = try FakeStripe()
        defer { Task { await fake.stop() } }
        let client = Self.client(fake)
        let created = try await client.createCheckoutSession(Self.subscriptionRequest(), idempotencyKey: "r1")
        let (_, subscription) = try fake.completeSession(id: created.id, email: "buyer@example.com", paid: true)
        let subscriptionID = try #require(subscription?.id)

        let plain = try await client.retrieveCheckoutSession(id: created.id)
        #expect(plain.isPaid)
        #expect(plain.status == .complete)
        #expect(plain.email == "buyer@example.com")
        #expect(plain.subscriptionID == subscriptionID)
        #expect(plain.subscription == nil)
        #expect(plain.customerID?.hasPrefix("cus_") == true)
        #expect(plain.url == nil)
        #expect(plain.metadata == Self.metadata)
        #expect(fake.receivedRequests.last?.target == "/v1/checkout/sessions/\(created.id)")

        let expanded = try await client.retrieveCheckoutSession(id: created.id, expandSubscription: true)
        #expect(expanded.subscriptionID == subscriptionID)
        let inline = try #require(expanded.subscription)
        #expect(inline.status == .active)
        #expect(inline.priceIDs == ["price_123"])
        #expect(inline.metadata == Self.metadata)
        #expect(inline.currentPeriodEnd == subscription?.currentPeriodEnd)
        #expect(fake.receivedRequests.last?.queryParameter("expand[]") == "subscription")
    }

    @Test("Retrieve a completed payment session: the payment intent id")
    func retrievePaymentSession() async throws {
        let fake = try FakeStripe()
        defer { Task { await fake.stop() } }
        let client = Self.client(fake)
        var request = Self.subscriptionRequest()
        request.mode = .payment
        let created = try await client.createCheckoutSession(request, idempotencyKey: "p1")
        let completed = try fake.completeSession(id: created.id, email: nil, paid: false)
        #expect(completed.subscription == nil)
        let session = try await client.retrieveCheckoutSession(id: created.id)
        #expect(session.status == .complete)
        #expect(session.paymentStatus == .unpaid)
        #expect(!session.isPaid)
        #expect(session.email == "buyer+1@example.com")
        #expect(session.paymentIntentID == completed.session.paymentIntentID)
        #expect(session.paymentIntentID?.hasPrefix("pi_") == true)
    }

    @Test("Retrieve a subscription with the period end only on the item, or only at the top level")
    func retrieveSubscriptionPeriodEnd() async throws {
        let fake = try FakeStripe()
        defer { Task { await fake.stop() } }
        let client = Self.client(fake)
        let created = Date(timeIntervalSince1970: 1_700_000_000)
        let end = Date(timeIntervalSince1970: 1_702_592_000)
        fake.putSubscription(.init(id: "sub_item", created: created, currentPeriodEnd: end, periodEndField: .item))
        fake.putSubscription(.init(id: "sub_top", created: created, currentPeriodEnd: end, periodEndField: .topLevel))
        let item = try await client.retrieveSubscription(id: "sub_item")
        let top = try await client.retrieveSubscription(id: "sub_top")
        #expect(item.currentPeriodEnd == end)
        #expect(top.currentPeriodEnd == end)
        #expect(top.priceIDs == ["price_123"])
        #expect(fake.subscriptionObject(id: "sub_item")?["current_period_end"] == nil)

        try fake.updateSubscription(id: "sub_item", status: "past_due")
        let pastDue = try await client.retrieveSubscription(id: "sub_item")
        #expect(pastDue.status == .pastDue)
        #expect(pastDue.snapshot(observedAt: created, purchaserEmail: nil).status == .billingRetry)
        try fake.updateSubscription(id: "sub_item", status: "active", cancelAtPeriodEnd: true)
        #expect(try await client.retrieveSubscription(id: "sub_item").snapshot(observedAt: created, purchaserEmail: nil).status == .canceled)
    }

    @Test("Unknown session or subscription: 404 resource_missing as StripeError.api")
    func unknownObjects() async throws {
        let fake = try FakeStripe()
        defer { Task { await fake.stop() } }
        let client = Self.client(fake)
        await #expect {
            _ = try await client.retrieveCheckoutSession(id: "cs_test_unknown")
        } throws: { error in
            guard let apiError = (error as? StripeError)?.apiError else { return false }
            return apiError.isResourceMissing && apiError.httpStatus == 404 && apiError.code == "resource_missing"
                && apiError.message == "No such checkout.session: 'cs_test_unknown'" && apiError.type == "invalid_request_error"
                && apiError.requestID?.hasPrefix("req_") == true
        }
        await #expect {
            _ = try await client.retrieveSubscription(id: "sub_unknown")
        } throws: { error in
            (error as? StripeError)?.apiError?.isResourceMissing == true
        }
    }

    @Test("A 400 error body becomes a StripeError.api with message, code and param")
    func badRequest() async throws {
        let fake = try FakeStripe(knownPrices: ["price_monthly"])
        defer { Task { await fake.stop() } }
        await #expect {
            _ = try await Self.client(fake).createCheckoutSession(Self.subscriptionRequest(), idempotencyKey: "b1")
        } throws: { error in
            guard let apiError = (error as? StripeError)?.apiError else { return false }
            return apiError.httpStatus == 400 && apiError.code == "resource_missing" && apiError.param == "line_items[0][price]"
                && apiError.message == "No such price: 'price_123'"
        }
    }

    @Test("500 and 429 are retryable UpstreamErrors; the next request succeeds", arguments: [500, 503, 429])
    func outage(_ status: Int) async throws {
        let fake = try FakeStripe()
        defer { Task { await fake.stop() } }
        let client = Self.client(fake)
        fake.failNextRequests(status: status, count: 2)
        for _ in 0..<2 {
            await #expect {
                _ = try await client.createCheckoutSession(Self.subscriptionRequest(), idempotencyKey: "o1")
            } throws: { error in
                guard let upstream = error as? UpstreamError else { return false }
                return upstream.service == "stripe" && upstream.kind == .badStatus(status) && upstream.retryable
            }
        }
        _ = try await client.createCheckoutSession(Self.subscriptionRequest(), idempotencyKey: "o1")
        #expect(fake.sessions.count == 1)
    }

    @Test("An unreachable Stripe is a retryable UpstreamError naming stripe")
    func unreachable() async throws {
        // A port held by a socket that never listens: a stopped server's port may be reused at once.
        let refusing = try RefusingPort()
        let base = "http://127.0.0.1:\(refusing.port)"
        let client = StripeClient(secretKey: "sk_test_1", apiBase: base, http: URLSessionHTTPClient(service: "transport"), timeout: .seconds(10))
        await #expect {
            _ = try await client.retrieveCheckoutSession(id: "cs_test_1")
        } throws: { error in
            guard let upstream = error as? UpstreamError else { return false }
            return upstream.service == "stripe" && upstream.kind == .unreachable && upstream.retryable
        }
    }

    @Test("Bodies that are not Stripe JSON are UpstreamErrors", arguments: [200, 400, 404])
    func garbage(_ status: Int) async throws {
        let server = try FakeHTTPServer { _ in
            HTTPResponse(status: HTTPStatus(code: status), contentType: "text/html", body: "<html>proxy error</html>")
        }
        defer { Task { await server.stop() } }
        let client = StripeClient(secretKey: "sk_test_1", apiBase: server.baseURL + "/", http: URLSessionHTTPClient(service: "stripe"))
        await #expect {
            _ = try await client.retrieveSubscription(id: "sub_1")
        } throws: { error in
            guard let upstream = error as? UpstreamError else { return false }
            return upstream.service == "stripe" && upstream.kind == (status == 200 ? .invalidResponse : .badStatus(status))
        }
        #expect(server.requests.first?.target == "/v1/subscriptions/sub_1")
    }

    @Test(
        "Metadata over Stripe's limits is refused before anything is sent",
        arguments: [
            (Dictionary(uniqueKeysWithValues: (0...50).map { ("k\($0)", "v") }), StripeError.Request.Reason.tooManyMetadataKeys),
            ([String(repeating: "k", count: 41): "v"], .invalidMetadataKey),
            (["": "v"], .invalidMetadataKey),
            (["a[b]": "v"], .invalidMetadataKey),
            (["k": String(repeating: "é", count: 501)], .metadataValueTooLong)
        ])
    func metadataLimits(_ metadata: [String: String], _ reason: StripeError.Request.Reason) async throws {
        let fake = try FakeStripe()
        defer { Task { await fake.stop() } }
        await #expect {
            _ = try await Self.client(fake).createCheckoutSession(Self.subscriptionRequest(metadata: metadata), idempotencyKey: "m1")
        } throws: { error in
            (error as? StripeError)?.requestError?.reason == reason
        }
        #expect(fake.receivedRequests.isEmpty)
    }

    @Test("Metadata exactly at Stripe's limits is sent")
    func metadataAtLimits() async throws {
        let fake = try FakeStripe()
        defer { Task { await fake.stop() } }
        var metadata = Dictionary(uniqueKeysWithValues: (0..<49).map { ("k\($0)", "v") })
        metadata[String(repeating: "k", count: 40)] = String(repeating: "é", count: 500)
        _ = try await Self.client(fake).createCheckoutSession(Self.subscriptionRequest(metadata: metadata), idempotencyKey: "m2")
        #expect(fake.sessions.first?.metadata == metadata)
    }

    @Test("Ids and idempotency keys are checked before they reach a URL or header")
    func invalidIDs() async throws {
        let fake = try FakeStripe()
        defer { Task { await fake.stop() } }
        let client = Self.client(fake)
        for id in ["", "cs_", "sub_123", "cs_test/../../v1/subscriptions/sub_1", "cs_test_1?expand[]=x", "cs_test 1"] {
            await #expect {
                _ = try await client.retrieveCheckoutSession(id: id)
            } throws: { error in
                (error as? StripeError)?.requestError?.reason == .invalidID
            }
        }
        await #expect { _ = try await client.retrieveSubscription(id: "cs_test_1") } throws: { error in
            (error as? StripeError)?.requestError?.reason == .invalidID
        }
        for key in ["", "a b", "line\r\nX-Evil: 1", String(repeating: "k", count: 256)] {
            await #expect {
                _ = try await client.createCheckoutSession(Self.subscriptionRequest(), idempotencyKey: key)
            } throws: { error in
                (error as? StripeError)?.requestError?.reason == .invalidIdempotencyKey
            }
        }
        #expect(fake.receivedRequests.isEmpty)
    }

    @Test("The fake's webhooks verify and decode like Stripe's")
    func fakeWebhooks() async throws {
        let fake = try FakeStripe()
        defer { Task { await fake.stop() } }
        let session = try await Self.client(fake).createCheckoutSession(Self.subscriptionRequest(), idempotencyKey: "w1")
        let (_, subscription) = try fake.completeSession(id: session.id, email: "buyer@example.com", paid: true)
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let verifier = StripeWebhookVerifier(secret: fake.webhookSecret)

        let completed = fake.webhook(type: "checkout.session.completed", object: try #require(fake.sessionObject(id: session.id)), created: now)
        let event = try verifier.verifiedEvent(payload: completed.body, signatureHeader: completed.signatureHeader, now: now.addingTimeInterval(5))
        #expect(event.id.hasPrefix("evt_"))
        guard case .checkoutSessionCompleted(let decoded) = event.payload else {
            Issue.record("wrong payload \(event.payload)")
            return
        }
        #expect(decoded.id == session.id)
        #expect(decoded.isPaid)
        #expect(decoded.email == "buyer@example.com")
        #expect(decoded.subscriptionID == subscription?.id)
        #expect(decoded.metadata == Self.metadata)

        let subscriptionID = try #require(subscription?.id)
        let invoice = fake.webhook(type: "invoice.paid", object: try #require(fake.invoicePaidObject(subscriptionID: subscriptionID)), created: now)
        let invoiceEvent = try verifier.verifiedEvent(payload: invoice.body, signatureHeader: invoice.signatureHeader, now: now)
        guard case .invoicePaid(let decodedInvoice) = invoiceEvent.payload else {
            Issue.record("wrong payload \(invoiceEvent.payload)")
            return
        }
        #expect(decodedInvoice.subscriptionID == subscriptionID)
        #expect(decodedInvoice.periodEnd == subscription?.currentPeriodEnd)
        #expect(decodedInvoice.periodStart != nil && decodedInvoice.periodStart == subscription?.currentPeriodStart)

        let other = fake.webhook(
            type: "customer.subscription.deleted", object: try #require(fake.subscriptionObject(id: subscriptionID)), created: now,
            secret: "whsec_other")
        #expect(throws: StripeError.webhook(.noMatchingSignature)) {
            try verifier.verify(payload: other.body, signatureHeader: other.signatureHeader, now: now)
        }
    }
}
