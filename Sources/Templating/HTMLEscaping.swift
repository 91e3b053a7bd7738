/// Escaping of text for HTML element content and quoted or unquoted attribute values.
///
/// Replaces `&` `<` `>` `"` `'` `` ` `` and `=` with character references; every other byte,
/// including all non-ASCII UTF-8, passes through unchanged. Works on UTF-8 bytes and copies
/// runs that need no escaping in bulk.
public enum HTMLEscaping {
    /// `text` with the HTML-special characters replaced by character references.
    public static func escape(_ text: String) -> String {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(text.utf8.count + 16)
        escape(text, into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Appends `text` to `buffer`, escaped.
    public static func escape(_ text: String, into buffer: inout [UInt8]) {
        var text = text
        // withUTF8 gives the contiguous bytes of a native string (copying once if it is not).
        text.withUTF8 { escape($0, into: &buffer) }
    }

    /// Appends `bytes` (UTF-8) to `buffer`, escaped.
    static func escape(_ bytes: UnsafeBufferPointer<UInt8>, into buffer: inout [UInt8]) {
        var runStart = 0
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            // Every special byte is in 0x22...0x60; one range check skips the rest quickly.
            if byte < 0x22 || byte > 0x60 || !needsEscaping(byte) {
                index += 1
                continue
            }
            if runStart < index {
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            }
            appendReference(for: byte, to: &buffer)
            index += 1
            runStart = index
        }
        if runStart < count {
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<count]))
        }
    }

    @inline(__always)
    private static func needsEscaping(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\""),
            UInt8(ascii: "'"), UInt8(ascii: "`"), UInt8(ascii: "="):
            true
        default:
            false
        }
    }

    private static func appendReference(for byte: UInt8, to buffer: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "&"): buffer.append(contentsOf: ampersand)
        case UInt8(ascii: "<"): buffer.append(contentsOf: lessThan)
        case UInt8(ascii: ">"): buffer.append(contentsOf: greaterThan)
        case UInt8(ascii: "\""): buffer.append(contentsOf: quote)
        case UInt8(ascii: "'"): buffer.append(contentsOf: apostrophe)
        case UInt8(ascii: "`"): buffer.append(contentsOf: backtick)
        default: buffer.append(contentsOf: equals)
        }
    }

    private static let ampersand: [UInt8] = Array("&amp;".utf8)
    private static let lessThan: [UInt8] = Array("&lt;".utf8)
    private static let greaterThan: [UInt8] = Array("&gt;".utf8)
    private static let quote: [UInt8] = Array("&quot;".utf8)
    private static let apostrophe: [UInt8] = Array("&#39;".utf8)
    private static let backtick: [UInt8] = Array("&#96;".utf8)
    private static let equals: [UInt8] = Array("&#61;".utf8)
}
