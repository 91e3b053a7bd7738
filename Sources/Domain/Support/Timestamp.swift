import Foundation
import Logging

/// Dates are stored as integer milliseconds since 1970 (portable to PostgreSQL `BIGINT`).
public enum Timestamp {
    public static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    public static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    public static func date(_ milliseconds: Int64?) -> Date? {
        milliseconds.map { date($0) }
    }

    /// RFC 3339 UTC with whole seconds (`2026-11-21T18:00:00Z`), the API's timestamp format.
    public static func rfc3339(_ date: Date) -> String {
        RFC3339.format(secondsSince1970: Int(date.timeIntervalSince1970.rounded(.down)))
    }
}
