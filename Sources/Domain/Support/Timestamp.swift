import Foundation

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
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let year = Int(parts.tm_year) + 1900
        guard (0...9999).contains(year) else {
            return "\(year)-\(digits(parts.tm_mon + 1))-\(digits(parts.tm_mday))T\(digits(parts.tm_hour)):\(digits(parts.tm_min)):\(digits(parts.tm_sec))Z"
        }
        // Written into one buffer: this runs for every timestamp of every API response.
        return String(unsafeUninitializedCapacity: 20) { out in
            func put(_ value: Int, _ width: Int, at offset: Int) {
                var rest = value
                for position in stride(from: offset + width - 1, through: offset, by: -1) {
                    out[position] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
            }
            put(year, 4, at: 0)
            put(Int(parts.tm_mon) + 1, 2, at: 5)
            put(Int(parts.tm_mday), 2, at: 8)
            put(Int(parts.tm_hour), 2, at: 11)
            put(Int(parts.tm_min), 2, at: 14)
            put(Int(parts.tm_sec), 2, at: 17)
            for (offset, separator) in [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":"), (19, "Z")] as [(Int, Unicode.Scalar)] {
                out[offset] = UInt8(ascii: separator)
            }
            return 20
        }
    }

    private static func digits(_ value: Int32) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
