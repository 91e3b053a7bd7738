import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// RFC 3339 UTC timestamps, `2026-11-21T18:00:00Z` or with milliseconds
/// `2026-11-21T18:00:00.123Z`, written into one buffer without Foundation's formatters (they
/// are slow and not safe to share across threads on every platform): every log line and every
/// timestamp in an API response is one.
public enum RFC3339 {
    /// `secondsSince1970` (and `milliseconds`, 0–999, when given) in UTC.
    public static func format(secondsSince1970: Int, milliseconds: Int? = nil) -> String {
        var seconds = secondsSince1970
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let year = Int(parts.tm_year) + 1900
        guard (0...9999).contains(year) else {
            let fields = [Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec)]
            let twoDigits = fields.map { $0 < 10 ? "0\($0)" : "\($0)" }
            let fraction = milliseconds.map { ".\(String(repeating: "0", count: $0 < 10 ? 2 : $0 < 100 ? 1 : 0))\($0)" } ?? ""
            return "\(year)-\(twoDigits[0])-\(twoDigits[1])T\(twoDigits[2]):\(twoDigits[3]):\(twoDigits[4])\(fraction)Z"
        }
        let length = milliseconds == nil ? 20 : 24
        // Written in place, with no array or string per field: every log line has one.
        return String(unsafeUninitializedCapacity: length) { out in
            func put(_ value: Int, _ width: Int, at offset: Int) {
                var rest = value
                for position in stride(from: offset + width - 1, through: offset, by: -1) {
                    out[position] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
            }
            put(year, 4, at: 0)
            out[4] = UInt8(ascii: "-")
            put(Int(parts.tm_mon) + 1, 2, at: 5)
            out[7] = UInt8(ascii: "-")
            put(Int(parts.tm_mday), 2, at: 8)
            out[10] = UInt8(ascii: "T")
            put(Int(parts.tm_hour), 2, at: 11)
            out[13] = UInt8(ascii: ":")
            put(Int(parts.tm_min), 2, at: 14)
            out[16] = UInt8(ascii: ":")
            put(Int(parts.tm_sec), 2, at: 17)
            if let milliseconds {
                out[19] = UInt8(ascii: ".")
                put(milliseconds, 3, at: 20)
            }
            out[length - 1] = UInt8(ascii: "Z")
            return length
        }
    }

    /// Writes the current time with milliseconds (`2026-11-21T18:00:00.123Z`) into a log line.
    /// The part up to the second is formatted once a second and kept: every log line has one.
    static func writeNow(into line: inout LogLine) {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        let second = Int(spec.tv_sec)
        lastSecond.withLock { cached in
            if cached.second != second {
                // Without milliseconds the text ends in its `Z`, which the milliseconds go before.
                cached = (second, Array(format(secondsSince1970: second).utf8.dropLast()))
            }
            cached.prefix.withUnsafeBufferPointer { line.bytes($0) }
        }
        let milliseconds = Int(spec.tv_nsec / 1_000_000)
        line.byte(UInt8(ascii: "."))
        line.byte(UInt8(ascii: "0") + UInt8(milliseconds / 100))
        line.byte(UInt8(ascii: "0") + UInt8(milliseconds / 10 % 10))
        line.byte(UInt8(ascii: "0") + UInt8(milliseconds % 10))
        line.byte(UInt8(ascii: "Z"))
    }

    /// The second `writeNow` last formatted, and its text without the `Z`.
    private static let lastSecond = Mutex<(second: Int, prefix: [UInt8])>((Int.min, []))
}
