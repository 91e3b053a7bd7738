import Crypto
import Foundation
import JSON

/// Everything the simulator holds, in memory: the Stripe objects it created and the replies of
/// idempotent requests. A restart forgets them (see `StripeSimulator`).
struct SimulatorState {
    var sessions: [String: SimulatedSession] = [:]
    var subscriptions: [String: SimulatedSubscription] = [:]
    var customers: [String: SimulatedCustomer] = [:]
    var paymentIntents: [String: SimulatedPaymentIntent] = [:]
    /// Every event, oldest first (the newest `maxEvents`), for `GET /v1/events`.
    var events: [SimulatorEvent] = []
    /// `Idempotency-Key` → the body it was first sent with and the answer.
    var idempotentReplies: [String: (body: [UInt8], reply: JSONValue)] = [:]

    /// A Stripe-looking id: `prefix` and 24 random letters and digits (`cs_test_a1B2...`).
    static func newID(_ prefix: String) -> String {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        var generator = SystemRandomNumberGenerator()
        return prefix + String((0..<24).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    /// The customer with `email`, created when there is none (Checkout reuses it).
    mutating func customer(email: String, now: Date) -> SimulatedCustomer {
        if let existing = customers.values.first(where: { $0.email.lowercased() == email.lowercased() }) { return existing }
        let customer = SimulatedCustomer(id: Self.newID("cus_"), email: email, created: now)
        customers[customer.id] = customer
        return customer
    }

    /// How many events are kept (Stripe keeps 30 days; the demo keeps the newest few thousand).
    static let maxEvents = 5_000

    /// Keeps `new` for `GET /v1/events`, dropping the oldest past `maxEvents`.
    mutating func record(_ new: [SimulatorEvent]) {
        events.append(contentsOf: new)
        if events.count > Self.maxEvents { events.removeFirst(events.count - Self.maxEvents) }
    }

    /// A succeeded payment intent (with its charge) for `customerID`.
    mutating func paidIntent(customerID: String, invoiceID: String?, metadata: [String: String], now: Date) -> SimulatedPaymentIntent {
        let intent = SimulatedPaymentIntent(
            id: Self.newID("pi_"), chargeID: Self.newID("ch_"), customerID: customerID, invoiceID: invoiceID,
            metadata: metadata, created: now)
        paymentIntents[intent.id] = intent
        return intent
    }
}

/// A Checkout Session and what the buyer did on the hosted page.
struct SimulatedSession {
    var id: String
    var mode: String
    var status = "open"
    var paymentStatus = "unpaid"
    var priceID: String
    var quantity: Int
    var successURL: String
    var cancelURL: String?
    var clientReferenceID: String?
    var customerEmail: String?
    var email: String?
    var customerID: String?
    var subscriptionID: String?
    var paymentIntentID: String?
    var invoiceID: String?
    var metadata: [String: String]
    var subscriptionMetadata: [String: String]
    var paymentIntentMetadata: [String: String]
    var allowPromotionCodes: Bool?
    var created: Date
    /// The hidden field of the hosted page's form: a POST without it is refused.
    var formToken: String
    /// The session's `locale` (`auto`, `de`, `pt-BR`, ...), which the hosted page speaks.
    var locale: String?

    /// `success_url` with `{CHECKOUT_SESSION_ID}` filled in, as Stripe redirects.
    var successRedirect: String { successURL.replacingOccurrences(of: "{CHECKOUT_SESSION_ID}", with: id) }
}

/// A subscription: one price, monthly periods.
struct SimulatedSubscription {
    var id: String
    var status: String
    var customerID: String
    var priceID: String
    var metadata: [String: String]
    var created: Date
    var periodStart: Date
    var periodEnd: Date
    var canceledAt: Date?
    var endedAt: Date?
    var latestInvoiceID: String?

    /// The length of every period.
    static let period: TimeInterval = 30 * 86_400
}

/// A customer, found again by email.
struct SimulatedCustomer {
    var id: String
    var email: String
    var created: Date
}

/// A succeeded payment (one-time, or one invoice of a subscription) and its charge.
struct SimulatedPaymentIntent {
    var id: String
    var chargeID: String
    var customerID: String
    var invoiceID: String?
    var metadata: [String: String]
    /// When it was paid: its charge's `created`.
    var created: Date
    var amount = 999
    /// The full refund made, if any: its id and when.
    var refund: (id: String, created: Date)?
}
