extension StripeError {
    /// A Stripe object or event that is not the JSON we expect (not JSON, a required field missing
    /// or of the wrong type). The web layer answers `400` to such a webhook.
    public struct Decoding: Sendable, Equatable, CustomStringConvertible {
        /// What was being read: `event`, `checkout.session`, `subscription`, ...
        public let what: String
        /// Which field is wrong and how, without values.
        public let reason: String

        /// A decoding error with an explicit reason.
        public init(what: String, reason: String) {
            self.what = what
            self.reason = reason
        }

        init(what: String, decodingError: DecodingError) {
            func path(_ context: DecodingError.Context, _ last: (any CodingKey)? = nil) -> String {
                let keys = context.codingPath + (last.map { [$0] } ?? [])
                let text = keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
                return text.hasPrefix(".") ? String(text.dropFirst()) : (text.isEmpty ? "(root)" : text)
            }
            let reason: String
            switch decodingError {
            case .keyNotFound(let key, let context): reason = "field `\(path(context, key))` is missing"
            case .valueNotFound(_, let context): reason = "field `\(path(context))` is null"
            case .typeMismatch(let type, let context): reason = "field `\(path(context))` is not a \(type)"
            case .dataCorrupted(let context):
                reason = context.codingPath.isEmpty ? "body is not valid JSON" : "field `\(path(context))` is invalid"
            @unknown default: reason = "body could not be decoded"
            }
            self.init(what: what, reason: reason)
        }

        public var description: String { "Stripe \(what): \(reason)" }
    }
}
