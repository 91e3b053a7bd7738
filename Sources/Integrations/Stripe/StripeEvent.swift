import Foundation

/// A Stripe webhook event, decoded after `StripeWebhookVerifier` accepted its bytes. Types
/// Tollgate acts on get a typed payload; every other type is `.unhandled` (a webhook endpoint
/// answers 200 to those so Stripe stops retrying).
public struct StripeEvent: Sendable, Equatable {
    /// The object an event carries, by event type.
    public enum Payload: Sendable, Equatable {
        /// `checkout.session.completed`.
        case checkoutSessionCompleted(StripeCheckoutSession)
        /// `checkout.session.async_payment_succeeded` (a delayed payment method cleared).
        case checkoutSessionAsyncPaymentSucceeded(StripeCheckoutSession)
        /// `customer.subscription.created`.
        case subscriptionCreated(StripeSubscription)
        /// `customer.subscription.updated`.
        case subscriptionUpdated(StripeSubscription)
        /// `customer.subscription.deleted` (the subscription ended).
        case subscriptionDeleted(StripeSubscription)
        /// `invoice.paid`.
        case invoicePaid(StripeInvoice)
        /// `charge.refunded`.
        case chargeRefunded(StripeCharge)
        /// `charge.dispute.closed` (`status` says who won).
        case disputeClosed(StripeDispute)
        /// Any other type; its object is not read.
        case unhandled(type: String)
    }

    /// `evt_...`: the key to deduplicate deliveries on.
    public var id: String
    /// `checkout.session.completed`, ...
    public var type: String
    /// When the change happened: the time every snapshot made from this event carries. (The
    /// object's own `created` is when *that object* was made: a Charge's is when it was paid.)
    public var created: Date
    public var livemode: Bool
    /// The API version the object was rendered with (`2025-03-31.basil`); nil for some test events.
    public var apiVersion: String?
    public var payload: Payload

    /// The event types with a typed payload.
    public static let handledTypes: Set<String> = [
        "checkout.session.completed", "checkout.session.async_payment_succeeded",
        "customer.subscription.created", "customer.subscription.updated", "customer.subscription.deleted",
        "invoice.paid", "charge.refunded", "charge.dispute.closed"
    ]

    /// An event with every field given (tests).
    public init(id: String, type: String, created: Date, livemode: Bool, apiVersion: String? = nil, payload: Payload) {
        self.id = id
        self.type = type
        self.created = created
        self.livemode = livemode
        self.apiVersion = apiVersion
        self.payload = payload
    }

    /// Decodes a verified webhook body.
    /// - Throws: `StripeError.decoding` when the body is not JSON, the envelope lacks `id`
    ///   (`evt_...`), `type`, `created` or `livemode`, or a handled type's object is malformed.
    public init(json: [UInt8]) throws {
        let envelope = try StripeJSON.decode(Envelope.self, from: json, what: "event")
        guard envelope.id.hasPrefix("evt_") else {
            throw StripeError.decoding(.init(what: "event", reason: "field `id` does not start with evt_"))
        }
        guard !envelope.type.isEmpty else {
            throw StripeError.decoding(.init(what: "event", reason: "field `type` is empty"))
        }
        id = envelope.id
        type = envelope.type
        created = StripeJSON.date(envelope.created)
        livemode = envelope.livemode
        apiVersion = envelope.apiVersion
        let what = "\(envelope.type) event"
        switch envelope.type {
        case "checkout.session.completed":
            payload = .checkoutSessionCompleted(try Self.object(StripeCheckoutSession.self, json, what))
        case "checkout.session.async_payment_succeeded":
            payload = .checkoutSessionAsyncPaymentSucceeded(try Self.object(StripeCheckoutSession.self, json, what))
        case "customer.subscription.created":
            payload = .subscriptionCreated(try Self.object(StripeSubscription.self, json, what))
        case "customer.subscription.updated":
            payload = .subscriptionUpdated(try Self.object(StripeSubscription.self, json, what))
        case "customer.subscription.deleted":
            payload = .subscriptionDeleted(try Self.object(StripeSubscription.self, json, what))
        case "invoice.paid":
            payload = .invoicePaid(try Self.object(StripeInvoice.self, json, what))
        case "charge.refunded":
            payload = .chargeRefunded(try Self.object(StripeCharge.self, json, what))
        case "charge.dispute.closed":
            payload = .disputeClosed(try Self.object(StripeDispute.self, json, what))
        default:
            payload = .unhandled(type: envelope.type)
        }
    }

    private struct Envelope: Decodable {
        let id: String
        let type: String
        let created: Int64
        let livemode: Bool
        let apiVersion: String?
        enum CodingKeys: String, CodingKey {
            case id, type, created, livemode
            case apiVersion = "api_version"
        }
    }

    private struct Wrapper<Object: Decodable>: Decodable {
        struct DataField: Decodable { let object: Object }
        let data: DataField
    }

    private static func object<Object: Decodable>(_ type: Object.Type, _ json: [UInt8], _ what: String) throws -> Object {
        try StripeJSON.decode(Wrapper<Object>.self, from: json, what: what).data.object
    }
}
