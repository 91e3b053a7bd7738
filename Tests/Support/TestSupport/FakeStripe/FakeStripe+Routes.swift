import StripeSimulator
import Foundation
import HTTPCore
import HTTPRouting

extension FakeStripe.Core {
    private static let topLevelParameters: Set<String> = [
        "mode", "line_items", "success_url", "cancel_url", "client_reference_id", "customer_email", "metadata",
        "allow_promotion_codes", "subscription_data", "payment_intent_data", "expand", "discounts", "locale"
    ]

    /// Checkout Session `locale` values, as Stripe's API reference lists them.
    static let checkoutLocales = [
        "auto", "bg", "cs", "da", "de", "el", "en", "en-GB", "es", "es-419", "et", "fi", "fil", "fr", "fr-CA", "hr", "hu", "id",
        "it", "ja", "ko", "lt", "lv", "ms", "mt", "nb", "nl", "pl", "pt", "pt-BR", "ro", "ru", "sk", "sl", "sv", "th", "tr", "vi",
        "zh", "zh-HK", "zh-TW"
    ]

    /// Answers one request the way Stripe would.
    func handle(_ request: HTTPRequest) -> HTTPResponse {
        if let failure = takeFailure() {
            let body =
                failure == 429
                ? FakeStripeJSON.error(
                    type: "invalid_request_error", message: "Request rate limit exceeded. Try again later.", code: "rate_limit")
                : FakeStripeJSON.error(type: "api_error", message: "An unknown error occurred on Stripe's side.")
            return respond(body, status: failure)
        }
        if let refusal = authenticate(request) { return refusal }
        if let version = request.headers["Stripe-Version"], !Self.isValidVersion(version) {
            return respond(
                FakeStripeJSON.error(type: "invalid_request_error", message: "Invalid Stripe API version: \(version)"), status: 400)
        }
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        switch (request.method, segments.count) {
        case (.post, 3) where segments == ["v1", "checkout", "sessions"]:
            return createSession(request)
        case (.get, 4) where segments[0] == "v1" && segments[1] == "checkout" && segments[2] == "sessions":
            return retrieveSession(id: segments[3], request: request)
        case (.get, 3) where segments[0] == "v1" && segments[1] == "subscriptions":
            return retrieveSubscription(id: segments[2])
        case (.post, 3) where segments == ["v1", "billing_portal", "sessions"]:
            return createPortalSession(request)
        case (.get, 2) where segments == ["v1", "promotion_codes"]:
            return listPromotionCodes(request)
        case (.get, 2) where segments == ["v1", "events"]:
            return listEvents(request)
        case (.get, 2) where segments == ["v1", "invoice_payments"]:
            return listInvoicePayments(request)
        case (.get, 3) where segments[0] == "v1" && segments[1] == "charges":
            return retrieveCharge(id: segments[2])
        default:
            return respond(
                FakeStripeJSON.error(
                    type: "invalid_request_error",
                    message: "Unrecognized request URL (\(request.method.rawValue): \(request.path))."),
                status: 404)
        }
    }

    private func takeFailure() -> Int? {
        state.withLock { state in
            guard let failure = state.failures else { return nil }
            state.failures = failure.remaining > 1 ? (failure.status, failure.remaining - 1) : nil
            return failure.status
        }
    }

    private func authenticate(_ request: HTTPRequest) -> HTTPResponse? {
        guard let authorization = request.headers["Authorization"], authorization.hasPrefix("Bearer ") else {
            return respond(
                FakeStripeJSON.error(
                    type: "invalid_request_error",
                    message:
                        "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY')."
                ),
                status: 401)
        }
        let key = String(authorization.dropFirst("Bearer ".count))
        guard key == secretKey else {
            let masked = String(key.prefix(8)) + "*********" + String(key.suffix(4))
            return respond(
                FakeStripeJSON.error(type: "invalid_request_error", message: "Invalid API Key provided: \(masked)", code: "api_key_invalid"),
                status: 401)
        }
        return nil
    }

    private static func isValidVersion(_ version: String) -> Bool {
        let parts = version.split(separator: ".", maxSplits: 1)
        let date = parts.first.map(String.init) ?? ""
        let digits = date.split(separator: "-")
        return digits.count == 3 && digits.map(\.count) == [4, 2, 2] && digits.allSatisfy { $0.allSatisfy(\.isNumber) }
            && (parts.count == 1 || parts[1].allSatisfy { $0.isLetter && $0.isLowercase })
    }

    // MARK: - Customer portal

    /// `POST /v1/billing_portal/sessions`: `customer` must be one a completed session created;
    /// answers a portal URL on `portalBaseURL`, as Stripe answers one on billing.stripe.com.
    private func createPortalSession(_ request: HTTPRequest) -> HTTPResponse {
        let parameters: StripeFormValue
        do {
            parameters = try StripeFormValue.decode(String(decoding: request.body, as: UTF8.self))
        } catch {
            return invalid("Invalid request body", param: nil)
        }
        if let unknown = parameters.keys.first(where: { !["customer", "return_url", "configuration", "locale"].contains($0) }) {
            return invalid("Received unknown parameter: \(unknown)", param: unknown, code: "parameter_unknown")
        }
        guard let customer = parameters["customer"]?.string, !customer.isEmpty else { return missing("customer") }
        let known = state.withLock { state in state.sessions.values.contains { $0.customerID == customer } }
        guard known else {
            return respond(
                FakeStripeJSON.error(
                    type: "invalid_request_error", message: "No such customer: '\(customer)'", code: "resource_missing", param: "customer"),
                status: 400)
        }
        let id = state.withLock { "bps_test_\($0.nextSuffix())" }
        let created = Int(wholeSecondsNow().timeIntervalSince1970)
        let returnURL = parameters["return_url"]?.string
        state.withLock { $0.portalSessions.append((customer: customer, returnURL: returnURL)) }
        return respond(
            [
                "id": id, "object": "billing_portal.session", "configuration": "bpc_test_default", "created": created,
                "customer": customer, "livemode": false, "locale": NSNull(), "on_behalf_of": NSNull(),
                "return_url": returnURL ?? NSNull(), "url": "\(FakeStripe.portalBaseURL)/p/session/\(id)"
            ],
            status: 200)
    }

    // MARK: - Checkout Sessions

    private func createSession(_ request: HTTPRequest) -> HTTPResponse {
        guard request.headers["Content-Type"]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true else {
            return invalid("Invalid request: the body must be application/x-www-form-urlencoded", param: nil)
        }
        let idempotencyKey = request.headers["Idempotency-Key"]
        if let idempotencyKey {
            let replay: Replay? = state.withLock { state in
                guard let stored = state.idempotency[idempotencyKey] else { return nil }
                return stored.body == request.body ? .same(stored.response) : .otherParameters
            }
            switch replay {
            case .same(let response)?:
                var answer = HTTPResponse(status: .ok, headers: ["Content-Type": "application/json"], body: response)
                answer.headers.set("Idempotent-Replayed", "true")
                return answer
            case .otherParameters?:
                return respond(
                    FakeStripeJSON.error(
                        type: "idempotency_error",
                        message:
                            "Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '\(idempotencyKey)' if you meant to execute a different request."
                    ),
                    status: 400)
            case nil: break
            }
        }
        let rawBody = String(decoding: request.body, as: UTF8.self)
        let parameters: StripeFormValue
        do {
            parameters = try StripeFormValue.decode(rawBody)
        } catch let error as StripeSimulatorError {
            return invalid(error.message, param: error.param)
        } catch {
            return invalid("Invalid request body", param: nil)
        }
        if let unknown = parameters.keys.first(where: { !Self.topLevelParameters.contains($0) }) {
            return invalid("Received unknown parameter: \(unknown)", param: unknown, code: "parameter_unknown")
        }
        guard let mode = parameters["mode"]?.string else { return missing("mode") }
        guard ["payment", "subscription", "setup"].contains(mode) else {
            return invalid("Invalid mode: must be one of payment, setup, or subscription", param: "mode", code: "parameter_invalid_string")
        }
        guard let item = parameters["line_items"]?[0] else { return missing("line_items") }
        guard let priceID = item["price"]?.string, !priceID.isEmpty else { return missing("line_items[0][price]") }
        if let knownPrices, !knownPrices.contains(priceID) {
            return respond(
                FakeStripeJSON.error(
                    type: "invalid_request_error", message: "No such price: '\(priceID)'", code: "resource_missing",
                    param: "line_items[0][price]"),
                status: 400)
        }
        guard let quantityText = item["quantity"]?.string, let quantity = Int(quantityText), quantity >= 1 else {
            return invalid("Invalid integer: line_items[0][quantity]", param: "line_items[0][quantity]", code: "parameter_invalid_integer")
        }
        guard let successURL = parameters["success_url"]?.string, !successURL.isEmpty else { return missing("success_url") }
        if mode == "subscription", parameters["payment_intent_data"] != nil {
            return invalid("You can not pass `payment_intent_data` in `subscription` mode.", param: "payment_intent_data")
        }
        if mode != "subscription", parameters["subscription_data"] != nil {
            return invalid("You can not pass `subscription_data` in `\(mode)` mode.", param: "subscription_data")
        }
        var allowPromotionCodes: Bool?
        if let value = parameters["allow_promotion_codes"] {
            guard let text = value.string, text == "true" || text == "false" else {
                return invalid("Invalid boolean: allow_promotion_codes", param: "allow_promotion_codes", code: "parameter_invalid_boolean")
            }
            allowPromotionCodes = text == "true"
        }
        if let refusal = checkDiscounts(parameters, allowPromotionCodes: allowPromotionCodes) { return refusal }
        if let locale = parameters["locale"] {
            // Stripe refuses a locale its payment page does not have.
            guard let text = locale.string, Self.checkoutLocales.contains(text) else {
                return invalid("Invalid locale: must be one of \(Self.checkoutLocales.joined(separator: ", "))", param: "locale")
            }
        }
        var metadataSets: [[String: String]] = []
        for (param, value) in [
            ("metadata", parameters["metadata"]), ("subscription_data[metadata]", parameters["subscription_data"]?["metadata"]),
            ("payment_intent_data[metadata]", parameters["payment_intent_data"]?["metadata"])
        ] {
            guard let value else { metadataSets.append([:]); continue }
            guard let metadata = value.stringDictionary else { return invalid("Invalid hash", param: param, code: "parameter_invalid_hash") }
            if let refusal = Self.checkMetadata(metadata, param: param) { return refusal }
            metadataSets.append(metadata)
        }
        let now = wholeSecondsNow()
        let body: [UInt8] = state.withLock { state in
            let id = "cs_test_a1\(state.nextSuffix())"
            let session = FakeStripe.Session(
                id: id, url: "https://checkout.stripe.com/c/pay/\(id)", mode: mode, status: "open", paymentStatus: "unpaid",
                priceID: priceID, quantity: quantity, amountSubtotal: FakeStripe.unitAmount * quantity,
                amountTax: state.tax(on: FakeStripe.unitAmount * quantity), successURL: successURL, cancelURL: parameters["cancel_url"]?.string,
                clientReferenceID: parameters["client_reference_id"]?.string, customerEmail: parameters["customer_email"]?.string,
                email: nil, customerID: nil, subscriptionID: nil, paymentIntentID: nil, invoiceID: nil,
                metadata: metadataSets[0], subscriptionMetadata: metadataSets[1], paymentIntentMetadata: metadataSets[2],
                allowPromotionCodes: allowPromotionCodes, created: now, livemode: secretKey.hasPrefix("sk_live_"),
                parameters: parameters, rawBody: rawBody, idempotencyKey: idempotencyKey)
            state.sessions[id] = session
            state.sessionOrder.append(id)
            let body = FakeStripeJSON.data(FakeStripeJSON.session(session))
            if let idempotencyKey { state.idempotency[idempotencyKey] = (request.body, body) }
            return body
        }
        return HTTPResponse(status: .ok, headers: ["Content-Type": "application/json", "Request-Id": requestID()], body: body)
    }

    /// `discounts[0][coupon]` or `discounts[0][promotion_code]`: one of them, known to the
    /// account, and never beside `allow_promotion_codes` (Stripe refuses both at once).
    private func checkDiscounts(_ parameters: StripeFormValue, allowPromotionCodes: Bool?) -> HTTPResponse? {
        guard let discounts = parameters["discounts"] else { return nil }
        if allowPromotionCodes != nil {
            return invalid("You may only specify one of these parameters: allow_promotion_codes, discounts.", param: "allow_promotion_codes")
        }
        guard let first = discounts[0] else { return invalid("Invalid array", param: "discounts", code: "parameter_invalid_array") }
        let (coupons, promotions) = state.withLock { ($0.coupons, Set($0.promotionCodes.values.filter(\.active).map(\.id))) }
        if let coupon = first["coupon"]?.string {
            guard coupons.contains(coupon) else {
                return respond(
                    FakeStripeJSON.error(
                        type: "invalid_request_error", message: "No such coupon: '\(coupon)'", code: "resource_missing",
                        param: "discounts[0][coupon]"),
                    status: 400)
            }
        } else if let promotion = first["promotion_code"]?.string {
            guard promotions.contains(promotion) else {
                return respond(
                    FakeStripeJSON.error(
                        type: "invalid_request_error", message: "No such promotion code: '\(promotion)'", code: "resource_missing",
                        param: "discounts[0][promotion_code]"),
                    status: 400)
            }
        } else {
            return invalid("Missing required param: discounts[0][coupon].", param: "discounts[0][coupon]", code: "parameter_missing")
        }
        return nil
    }

    /// `GET /v1/promotion_codes?code=...&active=...`: the matching promotion codes, as a list.
    private func listPromotionCodes(_ request: HTTPRequest) -> HTTPResponse {
        let code = request.queryItems.first { $0.name == "code" }?.value
        let active = request.queryItems.first { $0.name == "active" }?.value
        let matches: [[String: Any]] = state.withLock { state in
            state.promotionCodes.sorted { $0.key < $1.key }.compactMap { entry -> [String: Any]? in
                if let code, entry.key.lowercased() != code.lowercased() { return nil }
                if let active, (active == "true") != entry.value.active { return nil }
                return [
                    "id": entry.value.id, "object": "promotion_code", "code": entry.key, "active": entry.value.active,
                    "coupon": ["id": entry.value.coupon, "object": "coupon"] as [String: Any]
                ]
            }
        }
        return respond(["object": "list", "data": matches, "has_more": false, "url": "/v1/promotion_codes"], status: 200)
    }

    private enum Replay {
        case same([UInt8])
        case otherParameters
    }

    func wholeSecondsNow() -> Date {
        Date(timeIntervalSince1970: now().timeIntervalSince1970.rounded(.down))
    }

    private static func checkMetadata(_ metadata: [String: String], param: String) -> HTTPResponse? {
        func refuse(_ message: String) -> HTTPResponse {
            HTTPResponse.fakeJSON(FakeStripeJSON.error(type: "invalid_request_error", message: message, param: param), status: .badRequest)
        }
        if metadata.count > 50 { return refuse("Invalid \(param): must have at most 50 keys") }
        for (key, value) in metadata {
            if key.unicodeScalars.count > 40 { return refuse("Metadata keys can have at most 40 characters (\(param)[\(key)])") }
            if value.unicodeScalars.count > 500 { return refuse("Metadata values can have at most 500 characters (\(param)[\(key)])") }
        }
        return nil
    }

    private func retrieveSession(id: String, request: HTTPRequest) -> HTTPResponse {
        let expand = request.queryItems.filter { $0.name == "expand[]" || $0.name.hasPrefix("expand[") }.map(\.value)
        let object: [String: Any]? = state.withLock { state in
            guard let session = state.sessions[id] else { return nil }
            let subscription =
                expand.contains("subscription")
                ? session.subscriptionID.flatMap { state.subscriptions[$0] }.map(FakeStripeJSON.subscription) : nil
            return FakeStripeJSON.session(session, expandedSubscription: subscription, lineItems: expand.contains("line_items"))
        }
        guard let object else {
            return respond(
                FakeStripeJSON.error(
                    type: "invalid_request_error", message: "No such checkout.session: '\(id)'", code: "resource_missing", param: "session"),
                status: 404)
        }
        return respond(object, status: 200)
    }

    private func retrieveSubscription(id: String) -> HTTPResponse {
        guard let subscription = state.withLock({ $0.subscriptions[id] }) else {
            return respond(
                FakeStripeJSON.error(
                    type: "invalid_request_error", message: "No such subscription: '\(id)'", code: "resource_missing", param: "id"),
                status: 404)
        }
        return respond(FakeStripeJSON.subscription(subscription), status: 200)
    }

    // MARK: - Responses

    private func missing(_ param: String) -> HTTPResponse {
        invalid("Missing required param: \(param).", param: param, code: "parameter_missing")
    }

    private func invalid(_ message: String, param: String?, code: String? = nil) -> HTTPResponse {
        respond(FakeStripeJSON.error(type: "invalid_request_error", message: message, code: code, param: param), status: 400)
    }

    func respond(_ object: [String: Any], status: Int) -> HTTPResponse {
        HTTPResponse(
            status: HTTPStatus(code: status),
            headers: ["Content-Type": "application/json", "Request-Id": requestID(), "Stripe-Version": "2025-03-31.basil"],
            body: FakeStripeJSON.data(object))
    }

    private func requestID() -> String {
        "req_" + state.withLock { state in state.nextSuffix() }
    }
}
