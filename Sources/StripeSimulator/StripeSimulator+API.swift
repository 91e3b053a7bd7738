import Crypto
import Foundation
import HTTPCore
import HTTPRouting
import Integrations
import JSON

/// A refusal in Stripe's error shape.
struct APIFailure: Error {
    let status: Int
    let body: JSONValue

    static func missing(_ object: String, _ id: String) -> APIFailure {
        APIFailure(
            status: 404, body: SimulatorJSON.error("invalid_request_error", "No such \(object): '\(id)'", code: "resource_missing", param: "id"))
    }

    static func invalid(_ message: String, param: String?, code: String? = nil) -> APIFailure {
        APIFailure(status: 400, body: SimulatorJSON.error("invalid_request_error", message, code: code, param: param))
    }
}

/// Stripe's HTTP API as far as Tollgate (and `tollgate demo`) call it: Bearer auth with the demo
/// key, form-encoded bodies with Stripe's nested parameters, `Idempotency-Key` on session
/// creation, Stripe's JSON objects and error shape.
extension StripeSimulator {
    /// Answers one API request; `path` is the part after `/demo/stripe`, e.g. `/v1/customers`.
    public func respond(to request: HTTPRequest, path: String) async -> HTTPResponse {
        do {
            try authenticate(request)
            if request.method == .delete || path.hasSuffix("/refunds") || path.hasSuffix("/renew") {
                // Stripe's times are whole seconds, and Tollgate never lets an older observation
                // undo a newer one: a change starts on the next second, after what came before.
                let fraction = now().timeIntervalSince1970.truncatingRemainder(dividingBy: 1)
                try await Task.sleep(for: .milliseconds(Int((1 - fraction) * 1000) + 5))
            }
            let (status, body, events) = try route(request, segments: path.split(separator: "/").map(String.init))
            await publish(events)
            return Self.reply(status, body)
        } catch let failure as APIFailure {
            return Self.reply(failure.status, failure.body)
        } catch {
            return Self.reply(500, SimulatorJSON.error("api_error", "An unknown error occurred in the simulator."))
        }
    }

    private static func reply(_ status: Int, _ body: JSONValue) -> HTTPResponse {
        HTTPResponse(
            status: HTTPStatus(code: status),
            headers: ["Content-Type": "application/json", "Request-Id": SimulatorState.newID("req_"), "Stripe-Version": "2025-03-31.basil"],
            body: body.serialized())
    }

    private func authenticate(_ request: HTTPRequest) throws {
        guard let authorization = request.headers["Authorization"], authorization.hasPrefix("Bearer ") else {
            throw APIFailure(
                status: 401,
                body: SimulatorJSON.error(
                    "invalid_request_error",
                    "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY')."
                ))
        }
        let key = String(authorization.dropFirst("Bearer ".count))
        guard ConstantTime.equals(Array(key.utf8), Array(keys.apiKey.utf8)) else {
            throw APIFailure(
                status: 401,
                body: SimulatorJSON.error("invalid_request_error", "Invalid API Key provided: \(key.prefix(8))*********", code: "api_key_invalid"))
        }
    }

    private typealias Answer = (Int, JSONValue, [SimulatorEvent])

    private func route(_ request: HTTPRequest, segments: [String]) throws -> Answer {
        let query = Dictionary(request.queryItems.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        // Ids become `*` so that each route is one string: "GET v1/checkout/sessions/*".
        let ids = segments.filter(Self.isObjectID)
        let shape = segments.map { Self.isObjectID($0) ? "*" : $0 }.joined(separator: "/")
        let id = ids.first ?? ""
        switch "\(request.method.rawValue) \(shape)" {
        case "POST v1/checkout/sessions":
            return (200, try createSession(request), [])
        case "GET v1/checkout/sessions/*":
            let expand = request.queryItems.contains { ($0.name == "expand[]" || $0.name == "expand[0]") && $0.value == "subscription" }
            return (200, try sessionJSON(id: id, expandSubscription: expand), [])
        case "GET v1/subscriptions/*":
            guard let subscription = state.withLock({ $0.subscriptions[id] }) else { throw APIFailure.missing("subscription", id) }
            return (200, SimulatorJSON.subscription(subscription), [])
        case "GET v1/subscriptions":
            let customer = query["customer"]
            return list(\.subscriptions, "/v1/subscriptions", SimulatorJSON.subscription, \.created) { customer == nil || $0.customerID == customer }
        case "DELETE v1/subscriptions/*":
            let (subscription, events) = try cancel(subscriptionID: id)
            return (200, SimulatorJSON.subscription(subscription), events)
        case "POST v1/test_helpers/subscriptions/*/renew":
            let (subscription, events) = try renew(subscriptionID: id)
            return (200, SimulatorJSON.subscription(subscription), events)
        case "GET v1/customers":
            let email = query["email"]?.lowercased()
            return list(\.customers, "/v1/customers", SimulatorJSON.customer, \.created) { email == nil || $0.email.lowercased() == email }
        case "GET v1/customers/*":
            guard let customer = state.withLock({ $0.customers[id] }) else { throw APIFailure.missing("customer", id) }
            return (200, SimulatorJSON.customer(customer), [])
        case "GET v1/events":
            return (200, try events(request), [])
        case "GET v1/charges/*":
            guard let intent = state.withLock({ $0.paymentIntents.values.first { $0.chargeID == id } }) else {
                throw APIFailure.missing("charge", id)
            }
            return (200, SimulatorJSON.charge(intent), [])
        case "GET v1/invoice_payments":
            let intent = query["payment[payment_intent]"]
            let invoice = query["invoice"]
            return list(\.paymentIntents, "/v1/invoice_payments", SimulatorJSON.invoicePayment, \.created) {
                $0.invoiceID != nil && (intent == nil || $0.id == intent) && (invoice == nil || $0.invoiceID == invoice)
            }
        case "GET v1/payment_intents":
            let customer = query["customer"]
            return list(\.paymentIntents, "/v1/payment_intents", SimulatorJSON.paymentIntent, \.created) {
                customer == nil || $0.customerID == customer
            }
        case "POST v1/refunds":
            let form = try Self.form(request)
            guard let intentID = form["payment_intent"]?.string else { throw Self.missing("payment_intent") }
            let (refundID, intent, events) = try refund(paymentIntentID: intentID)
            let refund: JSONValue = [
                "id": .string(refundID), "object": "refund", "amount": .integer(Int64(intent.amount)), "charge": .string(intent.chargeID),
                "created": SimulatorJSON.seconds(intent.refund?.created ?? wholeSecondsNow()), "currency": "usd",
                "payment_intent": .string(intent.id), "status": "succeeded"
            ]
            return (200, refund, events)
        case "POST v1/billing_portal/sessions":
            let form = try Self.form(request)
            guard let customer = form["customer"]?.string else { throw Self.missing("customer") }
            guard state.withLock({ $0.customers[customer] }) != nil else { throw APIFailure.missing("customer", customer) }
            let returnURL = form["return_url"]?.string ?? publicBaseURL
            let portal: JSONValue = [
                "id": .string(SimulatorState.newID("bps_")), "object": "billing_portal.session",
                "created": SimulatorJSON.seconds(wholeSecondsNow()), "customer": .string(customer), "livemode": false,
                // The simulator has no portal pages: "managing billing" returns the buyer at once.
                "return_url": .string(returnURL), "url": .string(returnURL)
            ]
            return (200, portal, [])
        case "GET v1/promotion_codes":
            return (200, SimulatorJSON.list([], url: "/v1/promotion_codes"), [])
        default:
            throw APIFailure(
                status: 404,
                body: SimulatorJSON.error(
                    "invalid_request_error",
                    "Unrecognized request URL (\(request.method.rawValue): /\(segments.joined(separator: "/"))). The Stripe simulator implements only what Tollgate calls."
                ))
        }
    }

    /// An id of an object the simulator makes (`cs_test_...`, `sub_...`, `cus_...`, `pi_...`).
    static func isObjectID(_ segment: String) -> Bool {
        ["cs_", "sub_", "cus_", "pi_", "ch_"].contains { segment.hasPrefix($0) && segment.count > $0.count }
    }

    /// `GET /v1/events`: newest first, `created[gte|gt|lte|lt]`, `type` / `types[]`, `limit`
    /// (1–100, default 10), `starting_after`, as Stripe lists events.
    private func events(_ request: HTTPRequest) throws -> JSONValue {
        let items = request.queryItems
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
        func bound(_ name: String) -> Int64? { value("created[\(name)]").flatMap(Int64.init) }
        let limit = value("limit").flatMap(Int.init) ?? 10
        guard (1...100).contains(limit) else { throw APIFailure.invalid("Invalid integer: \(value("limit") ?? "")", param: "limit") }
        let types = Set(items.filter { $0.name == "types[]" }.map(\.value) + (value("type").map { [$0] } ?? []))
        let (gte, gt, lte, lt) = (bound("gte"), bound("gt"), bound("lte"), bound("lt"))
        var matching =
            state.withLock { $0.events }.reversed().filter { event in
                let created = Int64(event.created.timeIntervalSince1970.rounded(.down))
                return (types.isEmpty || types.contains(event.type)) && (gte.map { created >= $0 } ?? true) && (gt.map { created > $0 } ?? true)
                    && (lte.map { created <= $0 } ?? true) && (lt.map { created < $0 } ?? true)
            } as [SimulatorEvent]
        if let after = value("starting_after") {
            guard let index = matching.firstIndex(where: { $0.id == after }) else {
                throw APIFailure.invalid("No such event: '\(after)'", param: "starting_after", code: "resource_missing")
            }
            matching = Array(matching[(index + 1)...])
        }
        var list = SimulatorJSON.list(matching.prefix(limit).map(\.json), url: "/v1/events")
        if matching.count > limit, case .object(var members) = list {
            members = members.map { $0.key == "has_more" ? (key: "has_more", value: true) : $0 }
            list = .object(members)
        }
        return list
    }

    /// A Stripe list of the objects that match, newest first.
    private func list<Object>(
        _ objects: KeyPath<SimulatorState, [String: Object]>, _ url: String, _ render: (Object) -> JSONValue, _ created: KeyPath<Object, Date>,
        where matches: (Object) -> Bool
    ) -> Answer {
        let items: [JSONValue] = state.withLock { state in
            state[keyPath: objects].values.filter(matches).sorted { $0[keyPath: created] > $1[keyPath: created] }.map(render)
        }
        return (200, SimulatorJSON.list(items, url: url), [])
    }

    private func sessionJSON(id: String, expandSubscription: Bool) throws -> JSONValue {
        try state.withLock { state in
            guard let session = state.sessions[id] else { throw APIFailure.missing("checkout.session", id) }
            let subscription = expandSubscription ? session.subscriptionID.flatMap { state.subscriptions[$0] }.map(SimulatorJSON.subscription) : nil
            return SimulatorJSON.session(session, hostedURL: hostedURL(session.id), subscription: subscription)
        }
    }

    // MARK: Checkout Sessions

    private static let sessionParameters: Set<String> = [
        "mode", "line_items", "success_url", "cancel_url", "client_reference_id", "customer_email", "metadata",
        "allow_promotion_codes", "subscription_data", "payment_intent_data", "expand", "discounts", "locale"
    ]

    private func createSession(_ request: HTTPRequest) throws -> JSONValue {
        let idempotencyKey = request.headers["Idempotency-Key"]
        if let idempotencyKey, let stored = state.withLock({ $0.idempotentReplies[idempotencyKey] }) {
            guard stored.body == request.body else {
                throw APIFailure(
                    status: 400,
                    body: SimulatorJSON.error(
                        "idempotency_error",
                        "Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '\(idempotencyKey)' if you meant to execute a different request."
                    ))
            }
            return stored.reply
        }
        let form = try Self.form(request)
        if let unknown = form.keys.first(where: { !Self.sessionParameters.contains($0) }) {
            throw APIFailure.invalid("Received unknown parameter: \(unknown)", param: unknown, code: "parameter_unknown")
        }
        if let discount = form["discounts"]?[0] {
            // The simulated account has no coupons or promotion codes (its promotion code list is empty).
            let (param, object) = discount["coupon"] != nil ? ("discounts[0][coupon]", "coupon") : ("discounts[0][promotion_code]", "promotion code")
            let id = discount["coupon"]?.string ?? discount["promotion_code"]?.string ?? ""
            throw APIFailure.invalid("No such \(object): '\(id)'", param: param, code: "resource_missing")
        }
        guard let mode = form["mode"]?.string else { throw Self.missing("mode") }
        guard mode == "payment" || mode == "subscription" else {
            throw APIFailure.invalid("Invalid mode: the simulator supports payment and subscription", param: "mode", code: "parameter_invalid_string")
        }
        guard let priceID = form["line_items"]?[0]?["price"]?.string, priceID.hasPrefix("price_") else {
            throw Self.missing("line_items[0][price]")
        }
        guard let quantity = form["line_items"]?[0]?["quantity"]?.string.flatMap({ Int($0) }), quantity >= 1 else {
            throw APIFailure.invalid("Invalid integer: line_items[0][quantity]", param: "line_items[0][quantity]", code: "parameter_invalid_integer")
        }
        guard let successURL = form["success_url"]?.string, successURL.hasPrefix("http") else { throw Self.missing("success_url") }
        if let locale = form["locale"] {
            // Stripe refuses a locale its payment page does not have; the simulator's page speaks
            // the ones Tollgate's catalogs have and falls back as Tollgate's pages do.
            guard let text = locale.string, text == "auto" || CheckoutSessionRequest.stripeLocales.contains(text) else {
                throw APIFailure.invalid(
                    "Invalid locale: must be auto or one of Stripe Checkout's locales", param: "locale", code: "parameter_invalid_string")
            }
        }
        let session = SimulatedSession(
            id: SimulatorState.newID("cs_test_"), mode: mode, priceID: priceID, quantity: quantity, successURL: successURL,
            cancelURL: form["cancel_url"]?.string, clientReferenceID: form["client_reference_id"]?.string,
            customerEmail: form["customer_email"]?.string, metadata: form["metadata"]?.stringDictionary ?? [:],
            subscriptionMetadata: form["subscription_data"]?["metadata"]?.stringDictionary ?? [:],
            paymentIntentMetadata: form["payment_intent_data"]?["metadata"]?.stringDictionary ?? [:],
            allowPromotionCodes: form["allow_promotion_codes"]?.string.map { $0 == "true" }, created: wholeSecondsNow(),
            formToken: Hex.encode(try SecureRandom.bytes(count: 16)), locale: form["locale"]?.string)
        let json = SimulatorJSON.session(session, hostedURL: hostedURL(session.id))
        state.withLock { state in
            state.sessions[session.id] = session
            if let idempotencyKey { state.idempotentReplies[idempotencyKey] = (request.body, json) }
        }
        return json
    }

    private static func form(_ request: HTTPRequest) throws -> StripeFormValue {
        do {
            return try StripeFormValue.decode(String(decoding: request.body, as: UTF8.self))
        } catch let error as StripeSimulatorError {
            throw APIFailure.invalid(error.message, param: error.param)
        }
    }

    private static func missing(_ param: String) -> APIFailure {
        APIFailure.invalid("Missing required param: \(param).", param: param, code: "parameter_missing")
    }
}
