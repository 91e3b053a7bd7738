/// The elements of a Stripe list answer (`{"object": "list", "data": [...], "has_more": ...}`) as
/// the byte ranges they have in the answer, found by one scan that tracks strings and nesting.
/// Each event of `GET /v1/events` is then decoded from its own bytes, exactly as a webhook body,
/// without parsing the page into objects and writing each back (the slow part on Linux).
struct StripeListBytes {
    /// Each element of `data`, in order.
    let elements: [ArraySlice<UInt8>]
    /// `has_more`.
    let hasMore: Bool

    /// Nil when `bytes` is not an object with a `data` array and a boolean `has_more` at its top
    /// level (the caller reports an unreadable answer). Elements are not validated here: each is
    /// decoded on its own and a bad one is reported alone.
    init?(_ bytes: [UInt8]) {
        var scanner = Scanner(bytes: bytes)
        guard let (elements, hasMore) = scanner.topLevel() else { return nil }
        self.elements = elements
        self.hasMore = hasMore
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func topLevel() -> ([ArraySlice<UInt8>], Bool)? {
            skipSpace()
            guard take(UInt8(ascii: "{")) else { return nil }
            var elements: [ArraySlice<UInt8>]?
            var hasMore: Bool?
            while true {
                skipSpace()
                if take(UInt8(ascii: "}")) { break }
                guard let key = string() else { return nil }
                skipSpace()
                guard take(UInt8(ascii: ":")) else { return nil }
                skipSpace()
                if key.elementsEqual("data".utf8) {
                    guard let found = array() else { return nil }
                    elements = found
                } else if key.elementsEqual("has_more".utf8) {
                    if literal("true") { hasMore = true } else if literal("false") { hasMore = false } else { return nil }
                } else {
                    guard skipValue() else { return nil }
                }
                skipSpace()
                if take(UInt8(ascii: ",")) { continue }
                guard take(UInt8(ascii: "}")) else { return nil }
                break
            }
            guard let elements, let hasMore else { return nil }
            return (elements, hasMore)
        }

        /// The elements of an array starting at `index`, each as its byte range.
        mutating func array() -> [ArraySlice<UInt8>]? {
            guard take(UInt8(ascii: "[")) else { return nil }
            var elements: [ArraySlice<UInt8>] = []
            skipSpace()
            if take(UInt8(ascii: "]")) { return elements }
            while true {
                skipSpace()
                let start = index
                guard skipValue() else { return nil }
                elements.append(bytes[start..<index])
                skipSpace()
                if take(UInt8(ascii: ",")) { continue }
                return take(UInt8(ascii: "]")) ? elements : nil
            }
        }

        /// Steps over one value (object, array, string or scalar) without reading it.
        mutating func skipValue() -> Bool {
            guard index < bytes.count else { return false }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                return string() != nil
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while index < bytes.count {
                    switch bytes[index] {
                    case UInt8(ascii: "\""):
                        guard string() != nil else { return false }
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["):
                        depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            index += 1
                            return true
                        }
                    default:
                        break
                    }
                    index += 1
                }
                return false
            default:
                let start = index
                while index < bytes.count, !Self.ends(bytes[index]) { index += 1 }
                return index > start
            }
        }

        /// A string's raw bytes (escapes left as they are), `index` after its closing quote.
        mutating func string() -> ArraySlice<UInt8>? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = index
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\\"): index += 2
                case UInt8(ascii: "\""):
                    defer { index += 1 }
                    return bytes[start..<index]
                default: index += 1
                }
            }
            return nil
        }

        mutating func literal(_ word: String) -> Bool {
            let utf8 = Array(word.utf8)
            guard index + utf8.count <= bytes.count, bytes[index..<(index + utf8.count)].elementsEqual(utf8) else { return false }
            index += utf8.count
            return true
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
        }

        static func ends(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") || [0x20, 0x0A, 0x0D, 0x09].contains(byte)
        }
    }
}
