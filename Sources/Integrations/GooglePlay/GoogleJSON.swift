import JSON

/// Google's JSON, read strictly into `JSONValue`s (module JSON).
enum GoogleJSON {
    /// The JSON object in `bytes`, or nil (empty, not strict JSON, or not an object).
    static func object(_ bytes: [UInt8]) -> JSONValue? {
        guard !bytes.isEmpty, let value = try? JSONValue.parse(bytes), value.isObject else { return nil }
        return value
    }

    /// Google's error message and first reason from `{"error": {"message", "errors": [{"reason"}]}}`,
    /// shortened; nil when the body is not such an object.
    static func apiErrorSummary(_ body: [UInt8]) -> String? {
        guard let error = object(body)?["error"], error.isObject else { return nil }
        var parts: [String] = []
        if let message = error["message"]?.nonEmptyString { parts.append(String(message.prefix(200))) }
        if let errors = error["errors"]?.arrayElements, let reason = errors.first?["reason"]?.nonEmptyString {
            parts.append("reason \(reason.prefix(60))")
        } else if let status = error["status"]?.nonEmptyString {
            parts.append(String(status.prefix(60)))
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }
}

/// The readings Google's (and Apple's) JSON needs beyond `JSONValue`'s own: 64-bit integers
/// arrive as decimal strings (`"expiryTimeMillis": "1700000000000"`), some integers as either.
extension JSONValue {
    /// The text when this is a non-empty string.
    var nonEmptyString: String? {
        guard let text = stringValue, !text.isEmpty else { return nil }
        return text
    }

    /// A whole number written as a JSON number or a decimal string; nil for booleans (`true`
    /// is not 1), fractions, numbers beyond 64 bits and other text.
    var int64OrDecimal: Int64? {
        if case .string(let text) = self { return Int64(text) }
        return int64Value
    }

    /// `int64OrDecimal` when it fits an `Int`.
    var intOrDecimal: Int? { int64OrDecimal.flatMap { Int(exactly: $0) } }
}
