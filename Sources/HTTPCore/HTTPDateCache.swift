internal import Glibc
import Synchronization

/// The `Date` header value (IMF-fixdate, RFC 9110 §5.6.7), formatted at most once per second
/// and shared by all connections.
final class HTTPDateCache: Sendable {
    private let cached = Mutex<(second: Int, bytes: [UInt8])>((second: -1, bytes: []))

    /// The current date as bytes, e.g. `Sat, 21 Nov 2026 19:21:54 GMT`.
    func current() -> [UInt8] {
        let now = time(nil)
        return cached.withLock { entry in
            if entry.second != now {
                entry = (second: now, bytes: HTTPDateCache.format(now))
            }
            return entry.bytes
        }
    }

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func format(_ seconds: Int) -> [UInt8] {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        var out: [UInt8] = []
        out.reserveCapacity(29)
        out.append(contentsOf: days[Int(parts.tm_wday) % 7].utf8)
        out.append(contentsOf: ", ".utf8)
        appendDigits(Int(parts.tm_mday), 2, to: &out)
        out.append(UInt8(ascii: " "))
        out.append(contentsOf: months[Int(parts.tm_mon) % 12].utf8)
        out.append(UInt8(ascii: " "))
        appendDigits(Int(parts.tm_year) + 1900, 4, to: &out)
        out.append(UInt8(ascii: " "))
        appendDigits(Int(parts.tm_hour), 2, to: &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(Int(parts.tm_min), 2, to: &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(Int(parts.tm_sec), 2, to: &out)
        out.append(contentsOf: " GMT".utf8)
        return out
    }

    private static func appendDigits(_ value: Int, _ width: Int, to out: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        var value = value
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8((value / divisor) % 10))
            value %= divisor
            divisor /= 10
        }
    }
}
