#if canImport(Glibc)
import Glibc
#endif

/// RFC 3339 UTC timestamps with millisecond precision (`2026-11-21T18:00:00.123Z`), formatted
/// into one buffer without Foundation's formatters (they are slow and not safe to share across
/// threads on every platform): every log line starts with one.
enum LogTimestamp {
    static func now() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return format(seconds: spec.tv_sec, milliseconds: Int(spec.tv_nsec / 1_000_000))
    }

    static func format(seconds: Int, milliseconds: Int) -> String {
        var seconds = seconds
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let year = min(max(Int(parts.tm_year) + 1900, 0), 9999)
        return String(unsafeUninitializedCapacity: 24) { out in
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
            put(milliseconds, 3, at: 20)
            for (offset, separator) in [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":"), (19, "."), (23, "Z")] as [(Int, Unicode.Scalar)] {
                out[offset] = UInt8(ascii: separator)
            }
            return 24
        }
    }
}
