import Domain
import Foundation
import HTTPCore
import HTTPRouting
import JSON
import UseCases

/// The inputs of `/checkout/start`, from the query, a form body or a JSON body, decoded and
/// within API.md's bounds: how the plan is named (`plan`, `price_id`, `plan_id` or
/// `ply_context`'s `stripe_price_id`; `StartCheckout` decides which plan that is), an
/// `app_user_id` (`AppUserIDInput`), a UUID `checkout_context_id`, a `redirect_url` (`StartCheckout`
/// allows only configured ones), a base64 JSON `ply_context`, a Stripe `promotion_code` or `coupon`, and
/// every other parameter as a custom one (a paywall's placement parameters: `placement`,
/// `utm_*`, anything).
struct CheckoutStartRequest {
    /// The inputs `/checkout/start` reads itself; any other parameter is a custom one.
    static let ownInputs: Set<String> = [
        "plan", "price_id", "plan_id", "app_user_id", "app_user_secret", "checkout_context_id", "email", "redirect_url", "ply_context",
        "promotion_code",
        "coupon", "platform", "storefront", "external_purchase_token", "external_transaction_token", "locale", "couponCode"
    ]
    /// The longest platform token accepted (Apple's and Google's are a few hundred characters).
    static let maxTokenBytes = 4096
    /// API.md: up to 20 custom parameters, names of 1–40 characters `[A-Za-z0-9_.-]`, values up to 500 bytes.
    static let maxCustomParameters = 20
    static let maxNameLength = 40
    static let maxValueBytes = 500

    var planNamings: [CheckoutPlanChoice.Naming]
    var appUserID: String?
    /// The install's secret (`app_user_secret` or `X-App-User-Secret`): only its hash goes on, to
    /// be bound or checked when the checkout is paid; never in Stripe metadata, a redirect or a log.
    var appUserSecret: InstallSecret?
    var checkoutContextID: String?
    var email: String?
    var redirectURL: String?
    /// `ply_context` members (as `ply_<field>`) and the custom parameters, carried in the
    /// session's metadata and back to a redirect.
    var context: [String: String]
    /// A customer-facing Stripe promotion code, or a coupon id, to apply as the session's discount.
    var discount: StartCheckout.Discount?
    /// `platform`, `storefront` and the platform's token of an app that links out
    /// (`LinkOutCheckout` decides what they allow).
    var linkOut: LinkOutCheckout.Request
    /// The language the app asked for (`locale`, a language tag; `_` read as `-`), before
    /// `BuyerLanguage` matches it to a catalog.
    var locale: String?

    /// - Throws: `APIError.badRequest` naming the input that is wrong.
    init(_ request: HTTPRequest, jsonBody: JSONValue?) throws {
        let inputs = try Self.inputs(request, jsonBody: jsonBody)
        func value(_ name: String) -> String? {
            inputs.first { $0.name == name }.map { $0.value.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        var context: [String: String] = [:]
        if let encoded = value("ply_context") {
            for (key, value) in try Self.decodePlyContext(encoded, rawQuery: request.query) { context["ply_" + key] = value }
        }
        var namings = ["plan", "price_id", "plan_id"].compactMap { input in value(input).map { CheckoutPlanChoice.Naming(input: input, value: $0) } }
        if let price = context["ply_stripe_price_id"].map({ $0.trimmingCharacters(in: .whitespaces) }), !price.isEmpty {
            namings.append(CheckoutPlanChoice.Naming(input: "ply_context's stripe_price_id", value: price))
        }
        planNamings = namings
        appUserID = try value("app_user_id").map { try AppUserIDInput.require($0) }
        appUserSecret = try AppUserSecretInput.read(request, fieldValue: value("app_user_secret"))
        checkoutContextID = value("checkout_context_id")?.lowercased()
        if let id = checkoutContextID, UUIDInput.canonical(id) == nil {
            throw APIError.badRequest("checkout_context_id must be a UUID.")
        }
        email = try value("email").map { try EmailAddress.require($0) }
        redirectURL = value("redirect_url")
        for (name, value) in try Self.customParameters(inputs) { context[name] = value }
        self.context = context
        // Cleeng's `couponCode` is a code the buyer typed: a promotion code, never a custom parameter.
        let promotionCode = value("promotion_code") ?? value("couponCode")
        if let typed = value("promotion_code"), let cleeng = value("couponCode"), typed != cleeng {
            throw APIError.badRequest("promotion_code and couponCode name two different codes; send one.")
        }
        switch (promotionCode, value("coupon")) {
        case (let code?, nil): discount = .promotionCode(code)
        case (nil, let coupon?): discount = .coupon(coupon)
        case (nil, nil): discount = nil
        case (_?, _?): throw APIError.badRequest("Send promotion_code or coupon, not both.")
        }
        if let discount, discount.text.utf8.count > 200 || !discount.text.allSatisfy(Self.isNameCharacter) {
            throw APIError.badRequest("\(discount.inputName) must be at most 200 letters, digits, _, . or -.")
        }
        for name in ["external_purchase_token", "external_transaction_token"] where (value(name)?.utf8.count ?? 0) > Self.maxTokenBytes {
            throw APIError.badRequest("\(name) is longer than \(Self.maxTokenBytes) bytes.")
        }
        locale = try value("locale").map { tag in
            guard BuyerLanguage.isWellFormed(tag) else {
                throw APIError.badRequest(
                    "locale must be a language tag such as en, de or pt-BR (at most \(BuyerLanguage.maximumTagLength) characters).")
            }
            return BuyerLanguage.normalized(tag)
        }
        linkOut = LinkOutCheckout.Request(
            platform: value("platform"), storefront: value("storefront"), externalPurchaseToken: value("external_purchase_token"),
            externalTransactionToken: value("external_transaction_token"))
    }

    /// The parameters that are not `/checkout/start`'s own, checked against API.md's bounds
    /// (a repeated name keeps its last value).
    /// - Throws: `APIError.badRequest` naming the parameter out of bounds.
    static func customParameters(_ inputs: [(name: String, value: String)]) throws -> [String: String] {
        var custom: [String: String] = [:]
        for (name, value) in inputs where !ownInputs.contains(name) {
            guard (1...maxNameLength).contains(name.utf8.count), name.allSatisfy(isNameCharacter) else {
                throw APIError.badRequest(
                    "The parameter \"\(String(name.prefix(maxNameLength)))\" needs a name of 1 to \(maxNameLength) letters, digits, _, . or -.")
            }
            guard value.utf8.count <= maxValueBytes else {
                throw APIError.badRequest("The parameter \(name) is longer than \(maxValueBytes) bytes.")
            }
            custom[name] = value
            guard custom.count <= maxCustomParameters else {
                throw APIError.badRequest("Too many parameters: at most \(maxCustomParameters) besides checkout's own (\(name) is one too many).")
            }
        }
        return custom
    }

    private static func isNameCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "_" || character == "." || character == "-")
    }

    /// The order for `StartCheckout`.
    var order: StartCheckout.Order {
        StartCheckout.Order(
            planNamings: planNamings, appUserID: appUserID, checkoutContextID: checkoutContextID, email: email, redirectURL: redirectURL,
            discount: discount, context: context, linkOut: linkOut, appUserSecret: appUserSecret)
    }

    /// The query's items, then the body's: a form, or a JSON object (`jsonBody`, as the strict
    /// check read it) whose numbers and booleans are taken as their text (`1`, `0` for booleans).
    private static func inputs(_ request: HTTPRequest, jsonBody: JSONValue?) throws -> [(name: String, value: String)] {
        var items = request.queryItems
        guard request.method == .post, !request.body.isEmpty else { return items }
        let type = (request.headers["Content-Type"] ?? "").lowercased()
        if type.hasPrefix("application/json") {
            guard case .object(let members) = try jsonBody ?? request.strictJSONBody() else {
                throw APIError.badRequest("The body is not a JSON object.")
            }
            for (key, value) in members {
                guard let text = Self.text(of: value) else { throw APIError.badRequest("\(key) must be a string.") }
                items.append((name: key, value: text))
            }
        } else if type.hasPrefix("application/x-www-form-urlencoded") {
            items += FormURLEncoding.decode(String(decoding: request.body, as: UTF8.self))
        } else {
            throw APIError.unsupportedMediaType("Send a form or JSON body.")
        }
        return items
    }

    /// A string, number or boolean as the text a form would carry (`1.5`, `12`, `1` for true,
    /// `0` for false, as Foundation's `NSNumber` words them); nil for null, arrays and objects.
    private static func text(of value: JSONValue) -> String? {
        switch value {
        case .string(let text): text
        case .integer(let number): String(number)
        case .number(let number): NSNumber(value: number).stringValue
        case .bool(let flag): flag ? "1" : "0"
        case .null, .array, .object: nil
        }
    }

    /// `ply_context` as sent, where a query string's raw `+` was read as a space: Foundation's
    /// `URLComponents` leaves `+` unescaped, so apps build such URLs. When the decoded value is not
    /// valid, the query's own `ply_context` with `+` kept is tried (base64 has no spaces, so a
    /// valid value never changes meaning).
    /// - Throws: `APIError.badRequest` when neither reading is base64 of a JSON object.
    static func decodePlyContext(_ encoded: String, rawQuery: String?) throws -> [String: String] {
        do {
            return try decodePlyContext(encoded)
        } catch let error as APIError {
            let raw = rawQuery.map { FormURLEncoding.rawValues(named: "ply_context", in: $0) } ?? []
            guard let literal = raw.first(where: { $0.contains("+") }) else { throw error }
            return try decodePlyContext(literal.trimmingCharacters(in: .whitespaces))
        }
    }

    /// `ply_context`: base64 (standard or URL-safe, padding optional) of a JSON object whose
    /// values are strings, numbers or booleans.
    static func decodePlyContext(_ encoded: String) throws -> [String: String] {
        var text = encoded.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        guard let data = Data(base64Encoded: text), case .object(let members)? = try? JSONValue.parse(Array(data)) else {
            throw APIError.badRequest("ply_context must be base64 of a JSON object.")
        }
        var result: [String: String] = [:]
        for (key, value) in members {
            if let text = Self.text(of: value) { result[key] = text }
        }
        return result
    }
}
