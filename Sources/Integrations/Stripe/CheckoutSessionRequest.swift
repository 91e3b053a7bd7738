/// What Tollgate asks Stripe Checkout for: one price, quantity 1, and the paywall context in
/// metadata (copied onto the subscription or payment intent, so their events carry it too).
public struct CheckoutSessionRequest: Sendable, Equatable {
    /// Checkout modes Tollgate uses.
    public enum Mode: String, Sendable, Hashable {
        case subscription
        case payment
    }

    /// Stripe's metadata limits: keys, key length and value length (in characters).
    public static let maxMetadataKeys = 50
    public static let maxMetadataKeyLength = 40
    public static let maxMetadataValueLength = 500
    /// Stripe's limit on `client_reference_id`.
    public static let maxClientReferenceIDLength = 200

    public var mode: Mode
    /// `price_...`.
    public var priceID: String
    public var quantity: Int
    /// Where Stripe sends the browser after payment; may contain `{CHECKOUT_SESSION_ID}`.
    public var successURL: String
    public var cancelURL: String
    /// Our app user id, echoed back on the session.
    public var clientReferenceID: String?
    /// Prefills the email field of the payment page.
    public var customerEmail: String?
    /// Paywall context (`utm_*`, `ply_*`, `checkout_context_id`...), string to string.
    public var metadata: [String: String]
    /// Shows the promotion-code field when true (Stripe refuses it beside `discount`).
    public var allowPromotionCodes: Bool?
    /// A discount applied up front (`discounts[0][coupon]` or `discounts[0][promotion_code]`).
    public var discount: Discount?
    /// The language of Stripe's payment page (`locale`): one of `stripeLocales`, or `auto`.
    public var locale: String?

    /// The `locale` values Stripe Checkout accepts besides `auto` (Stripe's API reference,
    /// Checkout Session `locale`).
    public static let stripeLocales: Set<String> = [
        "bg", "cs", "da", "de", "el", "en", "en-GB", "es", "es-419", "et", "fi", "fil", "fr", "fr-CA", "hr", "hu", "id",
        "it", "ja", "ko", "lt", "lv", "ms", "mt", "nb", "nl", "pl", "pt", "pt-BR", "ro", "ru", "sk", "sl", "sv", "th",
        "tr", "vi", "zh", "zh-HK", "zh-TW"
    ]

    /// Stripe's `locale` for a language tag: the tag when Stripe has it, else its primary
    /// language when Stripe has that, else `auto` (Stripe follows the browser).
    public static func stripeLocale(for language: String) -> String {
        if stripeLocales.contains(language) { return language }
        let primary = String(language.split(separator: "-").first ?? "").lowercased()
        return stripeLocales.contains(primary) ? primary : "auto"
    }

    /// A discount Stripe applies to the session.
    public enum Discount: Sendable, Equatable {
        /// A coupon id.
        case coupon(String)
        /// A promotion code's id (`promo_...`), not the code the customer types.
        case promotionCode(String)
    }

    /// A request; `validate()` runs before anything is sent.
    public init(
        mode: Mode, priceID: String, quantity: Int = 1, successURL: String, cancelURL: String,
        clientReferenceID: String? = nil, customerEmail: String? = nil, metadata: [String: String] = [:],
        allowPromotionCodes: Bool? = nil, discount: Discount? = nil, locale: String? = nil
    ) {
        self.locale = locale
        self.discount = discount
        self.mode = mode
        self.priceID = priceID
        self.quantity = quantity
        self.successURL = successURL
        self.cancelURL = cancelURL
        self.clientReferenceID = clientReferenceID
        self.customerEmail = customerEmail
        self.metadata = metadata
        self.allowPromotionCodes = allowPromotionCodes
    }

    /// Checks what Stripe would reject, so the error names the cause before any network call.
    /// - Throws: `StripeError.request` naming the parameter and the limit.
    public func validate() throws {
        guard !priceID.isEmpty, priceID.utf8.count <= 255, !priceID.contains(where: { $0.isWhitespace || $0.isNewline }) else {
            throw StripeError.request(.init(.invalidParameter, "price id must be a non-empty Stripe id without spaces"))
        }
        guard quantity >= 1 else {
            throw StripeError.request(.init(.invalidParameter, "quantity must be at least 1"))
        }
        for (name, url) in [("success_url", successURL), ("cancel_url", cancelURL)] {
            guard url.hasPrefix("https://") || url.hasPrefix("http://"), url.utf8.count <= 5000 else {
                throw StripeError.request(.init(.invalidParameter, "\(name) must be an absolute http(s) URL of at most 5000 bytes"))
            }
        }
        if let clientReferenceID {
            guard !clientReferenceID.isEmpty, clientReferenceID.unicodeScalars.count <= Self.maxClientReferenceIDLength else {
                throw StripeError.request(.init(.invalidParameter, "client_reference_id must be 1 to \(Self.maxClientReferenceIDLength) characters"))
            }
        }
        if let customerEmail, customerEmail.isEmpty {
            throw StripeError.request(.init(.invalidParameter, "customer_email must not be empty when given"))
        }
        guard metadata.count <= Self.maxMetadataKeys else {
            throw StripeError.request(
                .init(.tooManyMetadataKeys, "metadata has \(metadata.count) keys; Stripe allows at most \(Self.maxMetadataKeys)"))
        }
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            let keyLength = key.unicodeScalars.count
            guard keyLength >= 1, keyLength <= Self.maxMetadataKeyLength, !key.contains("["), !key.contains("]") else {
                throw StripeError.request(
                    .init(
                        .invalidMetadataKey,
                        "metadata key \"\(key.prefix(60))\" must be 1 to \(Self.maxMetadataKeyLength) characters without square brackets (it has \(keyLength))"
                    ))
            }
            let valueLength = value.unicodeScalars.count
            guard valueLength <= Self.maxMetadataValueLength else {
                throw StripeError.request(
                    .init(
                        .metadataValueTooLong,
                        "metadata value of \"\(key)\" has \(valueLength) characters; Stripe allows at most \(Self.maxMetadataValueLength)"))
            }
        }
    }

    /// The form parameters, in a fixed order.
    var formParameters: StripeFormEncoder {
        var form = StripeFormEncoder()
        form.add("mode", mode.rawValue)
        form.add("line_items[0][price]", priceID)
        form.add("line_items[0][quantity]", String(quantity))
        form.add("success_url", successURL)
        form.add("cancel_url", cancelURL)
        if let clientReferenceID { form.add("client_reference_id", clientReferenceID) }
        if let customerEmail { form.add("customer_email", customerEmail) }
        if let locale { form.add("locale", locale) }
        switch discount {
        case .coupon(let id)?: form.add("discounts[0][coupon]", id)
        case .promotionCode(let id)?: form.add("discounts[0][promotion_code]", id)
        case nil: if let allowPromotionCodes { form.add("allow_promotion_codes", allowPromotionCodes ? "true" : "false") }
        }
        form.add("metadata", dictionary: metadata)
        switch mode {
        case .subscription: form.add("subscription_data[metadata]", dictionary: metadata)
        case .payment: form.add("payment_intent_data[metadata]", dictionary: metadata)
        }
        return form
    }
}
