/// Byte classes and small byte-level helpers of RFC 9110 / RFC 9112 used by the parser.
enum HTTPSyntax {
    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let colon = UInt8(ascii: ":")
    static let comma = UInt8(ascii: ",")

    /// `tchar` (RFC 9110 §5.6.2): the bytes allowed in methods and field names.
    @inline(__always)
    static func isTokenChar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// Bytes allowed in a request-target: visible ASCII only (no space, controls, DEL or 8-bit).
    @inline(__always)
    static func isTargetChar(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F }

    /// Bytes allowed in a field value: HTAB, visible ASCII, SP and obs-text; never CR, LF, NUL or other controls.
    @inline(__always)
    static func isFieldValueChar(_ byte: UInt8) -> Bool { byte == tab || (byte >= 0x20 && byte != 0x7F) }

    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool { byte == space || byte == tab }

    /// Whether `bytes` equals `lowercase` ignoring ASCII case. `lowercase` holds only
    /// lowercase letters, digits and `-`; callers have already rejected control bytes.
    static func equalsIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = lowercase.utf8Start
        for index in 0..<bytes.count where bytes[index] | 0x20 != expected[index] {
            return false
        }
        return true
    }

    /// `bytes` with leading and trailing SP/HTAB removed.
    static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var start = 0, end = bytes.count
        while start < end, isWhitespace(bytes[start]) { start += 1 }
        while end > start, isWhitespace(bytes[end - 1]) { end -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[start..<end])
    }

    /// Calls `body` with each comma-separated element of a field value, trimmed.
    static func forEachListElement(
        _ bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) throws(HTTPParseError) -> Void
    ) throws(HTTPParseError) {
        var start = 0
        for index in 0...bytes.count where index == bytes.count || bytes[index] == comma {
            try body(trimmed(UnsafeBufferPointer(rebasing: bytes[start..<index])))
            start = index + 1
        }
    }

    /// Decodes bytes already validated as field-value or token characters.
    static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `id` is an acceptable client request id: 1–128 of `[A-Za-z0-9._:-]`.
    static func isValidRequestId(_ id: String) -> Bool {
        let utf8 = id.utf8
        guard !utf8.isEmpty, utf8.count <= 128 else { return false }
        return utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: ":"), UInt8(ascii: "-"):
                true
            default:
                false
            }
        }
    }
}
