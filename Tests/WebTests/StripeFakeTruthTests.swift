import Foundation
import HTTPCore
import StripeSimulator
import Testing
import TestSupport

/// FakeStripe and the demo's simulator are checked against Stripe's published object fixtures
/// (`Tests/Fixtures/vectors/stripe/stripe-mock-fixtures3.json`, Stripe's own stripe-mock data):
/// every key they send exists in Stripe's object with the same JSON type, and the times and
/// amounts mean what Stripe's mean (`FakeStripe/README.md`).
@Suite("Stripe fakes say what Stripe says")
struct StripeFakeTruthTests {
    /// Stripe's objects by name, read anew for each use (JSON objects are not Sendable).
    static var fixtures: [String: Any] {
        let data = (try? SharedVectors.bytes("stripe/stripe-mock-fixtures3.json")) ?? []
        let root = (try? JSONSerialization.jsonObject(with: Data(data))) as? [String: Any]
        return root?["resources"] as? [String: Any] ?? [:]
    }

    static func kind(_ value: Any) -> String {
        switch value {
        case is NSNull: "null"
        // Foundation parses JSON true/false into a boolean NSNumber (objCType "c"), numbers into others.
        case let number as NSNumber: String(cString: number.objCType) == "c" ? "boolean" : "number"
        case is String: "string"
        case is [Any]: "array"
        case is [String: Any]: "object"
        default: "unknown"
        }
    }

    /// Keys Stripe's API reference documents that its fixtures leave out (each read in the docs).
    static let documentedOnly: Set<String> = [
        // InvoicePayment.payment.payment_intent: "ID of the PaymentIntent ... when type is payment_intent".
        "invoice_payment.payment.payment_intent"
    ]

    /// Where `sent` differs from Stripe's `example`: a key Stripe's object does not have, or a
    /// value of another JSON type (Stripe's `null` allows any; an id field allows an expanded object).
    static func mismatches(_ sent: Any, _ example: Any, at path: String) -> [String] {
        let (sentKind, exampleKind) = (kind(sent), kind(example))
        if exampleKind == "null" || sentKind == "null" { return [] }
        if sentKind != exampleKind {
            return exampleKind == "string" && sentKind == "object" ? [] : ["\(path): \(sentKind), Stripe sends \(exampleKind)"]
        }
        if let object = sent as? [String: Any], let reference = example as? [String: Any] {
            // Metadata is the account's own keys.
            if path.hasSuffix(".metadata") { return [] }
            return object.keys.sorted().flatMap { key -> [String] in
                if documentedOnly.contains("\(path).\(key)") { return [] }
                guard let expected = reference[key] else { return ["\(path).\(key): Stripe's object has no such key"] }
                return mismatches(object[key]!, expected, at: "\(path).\(key)")
            }
        }
        if let array = sent as? [Any], let reference = (example as? [Any])?.first {
            return array.enumerated().flatMap { mismatches($0.element, reference, at: "\(path)[\($0.offset)]") }
        }
        return []
    }

    static func expectLikeStripe(_ object: [String: Any], _ resource: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let example = fixtures[resource] else {
            Issue.record("no Stripe fixture for \(resource)", sourceLocation: sourceLocation)
            return
        }
        #expect(object["object"] as? String == resource, sourceLocation: sourceLocation)
        let problems = mismatches(object, example, at: resource)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))", sourceLocation: sourceLocation)
    }

    @Test("The shape checker catches an unknown key and a wrong type (it can fail)")
    func checkerFails() {
        let charge = ["object": "charge", "amount": "999", "refunded_at": 1] as [String: Any]
        let problems = Self.mismatches(charge, Self.fixtures["charge"] ?? [:], at: "charge")
        #expect(problems.contains { $0.contains("charge.amount") } && problems.contains { $0.contains("refunded_at") })
    }

    @Test("FakeStripe: every event object is Stripe's shape; a refund's Charge keeps its paid time, the event carries the refund's")
    func fakeStripe() async throws {
        let harness = try CheckoutHarness()
        let monthly = try await harness.startCheckout()
        try harness.pay(monthly)
        let lifetime = try await harness.startCheckout("plan=lifetime&app_user_id=user-2&email=two%40example.com")
        try harness.pay(lifetime, email: "two@example.com")
        let intent = try #require(harness.stripe.session(id: lifetime)?.paymentIntentID)
        let paidAt = try #require(harness.stripe.charge(paymentIntentID: intent)?.paidAt)
        harness.clock.advance(3 * 86_400)
        let subscription = try #require(harness.stripe.session(id: monthly)?.subscriptionID)
        _ = try harness.stripe.renewSubscription(id: subscription)
        harness.clock.advance(3_600)
        let refund = try harness.stripe.refund(paymentIntentID: intent, amount: 500)
        harness.clock.advance(3_600)
        let dispute = try harness.stripe.closeDispute(paymentIntentID: intent, status: "lost", openedAt: paidAt.addingTimeInterval(86_400))
        _ = try harness.stripe.updateSubscription(id: subscription, status: "canceled")

        let resources = [
            "checkout.session.completed": "checkout.session", "customer.subscription.created": "subscription",
            "customer.subscription.updated": "subscription", "customer.subscription.deleted": "subscription", "invoice.paid": "invoice",
            "charge.refunded": "charge", "charge.dispute.closed": "dispute"
        ]
        for event in harness.stripe.events {
            let envelope = try #require(try JSONSerialization.jsonObject(with: Data(event.body)) as? [String: Any])
            Self.expectLikeStripe(envelope.filter { $0.key != "data" }, "event")
            Self.expectLikeStripe(event.object, try #require(resources[event.type], "\(event.type)"))
        }
        #expect(Set(harness.stripe.events.map(\.type)) == Set(resources.keys))

        // Times: the Charge's created is its payment; the event's is the refund's; so is the refund's own.
        #expect(refund.object["created"] as? Int == Int(paidAt.timeIntervalSince1970))
        #expect(refund.created > paidAt)
        let refunds = try #require((refund.object["refunds"] as? [String: Any])?["data"] as? [[String: Any]])
        #expect(refunds.first?["created"] as? Int == Int(refund.created.timeIntervalSince1970))
        #expect(refund.object["amount_refunded"] as? Int == 500 && refund.object["refunded"] as? Bool == false)
        #expect(dispute.object["created"] as? Int == Int(paidAt.addingTimeInterval(86_400).timeIntervalSince1970))
        #expect(dispute.created > refund.created)
        // An invoice's created is when it was drafted (its period's start), never after the event.
        for event in harness.stripe.events where event.type == "invoice.paid" {
            #expect((event.object["created"] as? Int).map { $0 <= Int(event.created.timeIntervalSince1970) } == true)
            #expect(event.object["payments"] == nil, "Stripe includes an invoice's payments only when expanded")
        }
    }

    @Test("The demo's simulator: its events, charges and invoice payments are Stripe's shape; a refunded Charge keeps its paid time")
    func simulator() async throws {
        let demo = try DemoHarness()
        let sessionID = try await demo.startCheckout(email: "buyer@example.com")
        #expect(await demo.submit(sessionID, choice: "pay").status == .seeOther)
        let key: HTTPHeaders = ["Authorization": "Bearer \(demo.simulator.keys.apiKey)"]
        let session = try #require(await demo.app.send(.get, "/demo/stripe/v1/checkout/sessions/\(sessionID)", headers: key).jsonObject)
        let subscriptionID = try #require(session["subscription"] as? String)
        let intents = await demo.app.send(.get, "/demo/stripe/v1/payment_intents", headers: key).jsonObject
        let intent = try #require((intents?["data"] as? [[String: Any]])?.first)
        let intentID = try #require(intent["id"] as? String)
        // Refunds and renewals start on the next second (the simulator waits for it).
        let form: HTTPHeaders = ["Authorization": "Bearer \(demo.simulator.keys.apiKey)", "Content-Type": "application/x-www-form-urlencoded"]
        let refund = await demo.app.send(.post, "/demo/stripe/v1/refunds", headers: form, body: "payment_intent=\(intentID)")
        #expect(refund.status == .ok)
        Self.expectLikeStripe(try #require(refund.jsonObject), "refund")
        #expect((refund.jsonObject?["created"] as? Int).map { $0 > (intent["created"] as? Int ?? .max) } == true, "made after the payment")
        #expect(await demo.app.send(.post, "/demo/stripe/v1/test_helpers/subscriptions/\(subscriptionID)/renew", headers: key).status == .ok)

        let list = try #require(await demo.app.send(.get, "/demo/stripe/v1/events?limit=100", headers: key).jsonObject)
        let events = try #require(list["data"] as? [[String: Any]])
        #expect(events.count >= 6)
        let created = events.compactMap { $0["created"] as? Int }
        #expect(created == created.sorted(by: >), "newest first, as Stripe lists")
        let resources = ["checkout.session": "checkout.session", "customer.subscription": "subscription", "invoice": "invoice", "charge": "charge"]
        for event in events {
            Self.expectLikeStripe(event.filter { $0.key != "data" }, "event")
            let type = try #require(event["type"] as? String)
            let object = try #require((event["data"] as? [String: Any])?["object"] as? [String: Any])
            let resource = try #require(resources.first { type.hasPrefix($0.key) }?.value, "\(type)")
            Self.expectLikeStripe(object, resource)
        }
        let refunded = try #require(events.first { $0["type"] as? String == "charge.refunded" })
        let charge = try #require((refunded["data"] as? [String: Any])?["object"] as? [String: Any])
        #expect(charge["created"] as? Int == intent["created"] as? Int, "the Charge was created when it was paid")
        #expect(try #require(charge["created"] as? Int) < (refunded["created"] as? Int ?? 0))

        let chargeID = try #require(charge["id"] as? String)
        Self.expectLikeStripe(try #require(await demo.app.send(.get, "/demo/stripe/v1/charges/\(chargeID)", headers: key).jsonObject), "charge")
        let payments = try #require(
            await demo.app.send(
                .get, "/demo/stripe/v1/invoice_payments?payment[type]=payment_intent&payment[payment_intent]=\(intentID)", headers: key
            ).jsonObject)
        let payment = try #require((payments["data"] as? [[String: Any]])?.first)
        Self.expectLikeStripe(payment, "invoice_payment")
        #expect(payment["invoice"] as? String == session["invoice"] as? String)
        await demo.stop()
    }
}
