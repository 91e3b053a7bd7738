import Crypto
import Foundation

extension FakeStripe {
    /// A webhook delivery as Stripe sends it: an event JSON shaped like
    /// `vectors/stripe/fixture_event.json` around `object`, and its `Stripe-Signature` header
    /// `t=<signedAt>,v1=<hex HMAC-SHA256 of "t." + body keyed by the whole whsec_ secret>`.
    /// - Parameters:
    ///   - type: the event type, e.g. `checkout.session.completed`.
    ///   - object: `data.object` (see `sessionObject(id:)` and its siblings).
    ///   - created: the event's `created`.
    ///   - id: the event id (a fresh `evt_test_...` by default; reuse one to test deduplication).
    ///   - signedAt: the signature time (default `created`).
    ///   - secret: the endpoint secret (default `webhookSecret`).
    public func webhook(
        type: String, object: [String: Any], created: Date, id: String? = nil, signedAt: Date? = nil, secret: String? = nil
    ) -> (body: [UInt8], signatureHeader: String) {
        let eventID = id ?? "evt_test_" + core.state.withLock { $0.nextSuffix() }
        let event: [String: Any] = [
            "id": eventID,
            "object": "event",
            "api_version": "2025-03-31.basil",
            "created": FakeStripeJSON.seconds(created),
            "data": ["object": object],
            "livemode": (object["livemode"] as? Bool) ?? false,
            "pending_webhooks": 1,
            "request": ["id": NSNull(), "idempotency_key": NSNull()] as [String: Any],
            "type": type
        ]
        let body = FakeStripeJSON.data(event)
        return (body, Self.signatureHeader(body: body, timestamp: FakeStripeJSON.seconds(signedAt ?? created), secret: secret ?? webhookSecret))
    }

    /// Stripe's `Stripe-Signature` header for `body` signed at `timestamp` with `secret`.
    public static func signatureHeader(body: [UInt8], timestamp: Int, secret: String) -> String {
        var signed = Array("\(timestamp).".utf8)
        signed.append(contentsOf: body)
        // HMAC over in-memory bytes only fails if OpenSSL itself is broken; an empty signature
        // then makes every verification in the test fail loudly.
        let mac = (try? HMACSHA256.authenticationCode(for: signed, key: Array(secret.utf8))) ?? []
        return "t=\(timestamp),v1=\(Hex.encode(mac))"
    }

    /// The JSON object of session `id` as Stripe renders it (for `checkout.session.*` events).
    public func sessionObject(id: String) -> [String: Any]? {
        core.state.withLock { state in state.sessions[id].map { FakeStripeJSON.session($0) } }
    }

    /// The JSON object of subscription `id` (for `customer.subscription.*` events).
    public func subscriptionObject(id: String) -> [String: Any]? {
        core.state.withLock { state in state.subscriptions[id].map(FakeStripeJSON.subscription) }
    }

    /// An `invoice.paid` object for the current period of subscription `id`, in the
    /// 2025-03-31 shape (`parent.subscription_details`, `lines.data[].period`; `payments` not
    /// included, as in Stripe's events), paid now by a new charge.
    public func invoicePaidObject(subscriptionID id: String, email: String? = nil) -> [String: Any]? {
        core.state.withLock { state -> [String: Any]? in
            guard let subscription = state.subscriptions[id] else { return nil }
            let invoiceID = "in_test_\(state.nextSuffix())"
            let charge = state.charge(customerID: subscription.customerID, invoiceID: invoiceID, paidAt: core.wholeSecondsNow())
            return FakeStripeJSON.invoice(id: invoiceID, subscription: subscription, charge: charge, email: email)
        }
    }
}
