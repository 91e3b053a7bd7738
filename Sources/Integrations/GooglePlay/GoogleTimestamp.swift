import Foundation
import JSON
import Logging

/// RFC 3339 timestamps as the Play Developer API and Pub/Sub write them
/// (`2023-12-14T22:13:20.123Z`, up to nanoseconds, `Z` or a numeric offset), and the
/// millisecond counts they also use.
enum GoogleTimestamp {
    /// The instant `text` names, or nil when it is not an RFC 3339 date-time.
    static func parse(_ text: String) -> Date? {
        RFC3339.parse(text).map { Date(timeIntervalSince1970: $0) }
    }

    /// Unix milliseconds written as a JSON number or a decimal string (`eventTimeMillis`,
    /// `purchaseTimeMillis`).
    static func fromMilliseconds(_ value: JSONValue?) -> Date? {
        guard let milliseconds = value?.int64OrDecimal, milliseconds >= 0 else { return nil }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
