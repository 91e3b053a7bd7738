import Foundation

/// Small readers over `JSONSerialization` output for Google's JSON, where 64-bit integers
/// arrive as strings and some integers as either.
enum GoogleJSON {
    /// The JSON object in `bytes`, or nil.
    static func object(_ bytes: [UInt8]) -> [String: Any]? {
        guard !bytes.isEmpty, let value = try? JSONSerialization.jsonObject(with: Data(bytes)) else { return nil }
        return value as? [String: Any]
    }

    /// A non-empty string member.
    static func string(_ value: Any?) -> String? {
        guard let string = value as? String, !string.isEmpty else { return nil }
        return string
    }

    /// An integer written as a JSON integer or a decimal string; nil for booleans, fractions, junk.
    static func int64(_ value: Any?) -> Int64? {
        switch value {
        case let string as String:
            return Int64(string)
        case let number as NSNumber:
            // JSONSerialization gives `true`/`false` as NSNumbers of type "c"; they are not integers.
            if isBoolean(number) { return nil }
            let double = number.doubleValue
            guard double.isFinite, double.rounded() == double, abs(double) < 9.0e18 else { return nil }
            return number.int64Value
        default:
            return nil
        }
    }

    /// An `Int` written as a JSON integer or a decimal string.
    static func int(_ value: Any?) -> Int? {
        int64(value).flatMap { Int(exactly: $0) }
    }

    /// Google's error message and first reason from `{"error": {"message", "errors": [{"reason"}]}}`,
    /// shortened; nil when the body is not such an object.
    static func apiErrorSummary(_ body: [UInt8]) -> String? {
        guard let error = object(body)?["error"] as? [String: Any] else { return nil }
        var parts: [String] = []
        if let message = string(error["message"]) { parts.append(String(message.prefix(200))) }
        if let errors = error["errors"] as? [[String: Any]], let reason = string(errors.first?["reason"]) {
            parts.append("reason \(reason.prefix(60))")
        } else if let status = string(error["status"]) {
            parts.append(String(status.prefix(60)))
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// Whether a JSONSerialization number was a JSON boolean. `value is Bool` is true for the
    /// numbers 0 and 1 as well on Linux; the objCType tells them apart.
    static func isBoolean(_ number: NSNumber) -> Bool {
        let type = String(cString: number.objCType)
        return type == "c" || type == "B"
    }
}
