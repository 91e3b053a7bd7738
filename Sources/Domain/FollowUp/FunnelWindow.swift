import Foundation

/// The `since` of the funnel (`GET /admin/v1/funnel?since=7d`, `tollgate admin funnel --since`):
/// `<n>h` or `<n>d`, from 1 hour to 90 days.
public struct FunnelWindow: Sendable, Equatable {
    /// As given (`7d`).
    public let text: String
    /// Its length.
    public let seconds: TimeInterval

    /// Seven days, the default.
    public static let week = FunnelWindow(text: "7d", seconds: 7 * 86_400)

    private init(text: String, seconds: TimeInterval) {
        self.text = text
        self.seconds = seconds
    }

    /// The sentence naming the accepted forms (the 400's message).
    public static let forms = "since must be <n>h or <n>d (for example 24h or 7d), from 1h to 90d"

    /// Parses `text`; nil for anything but `<n>h` / `<n>d` within 1 h–90 d.
    public static func parse(_ text: String) -> FunnelWindow? {
        guard let unit = text.last, unit == "h" || unit == "d" else { return nil }
        let digits = text.dropLast()
        // Digits without a leading zero (the document's pattern says the same).
        guard !digits.isEmpty, digits.count <= 5, digits.first != "0", digits.allSatisfy({ $0.isASCII && $0.isNumber }), let count = Int(digits)
        else {
            return nil
        }
        let hours = unit == "h" ? count : count * 24
        guard hours >= 1, hours <= 90 * 24 else { return nil }
        return FunnelWindow(text: text, seconds: TimeInterval(hours) * 3600)
    }
}
