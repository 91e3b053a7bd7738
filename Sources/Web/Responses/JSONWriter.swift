import ByteScan
import JSON

/// Builds compact JSON by hand: exact key order, no reflection, for hot paths (stored JSON text
/// is re-read strictly and written with sorted keys, `storedObject`).
///
///     var json = JSONWriter()
///     json.object { o in o.string("status", "ok"); o.object("error") { e in e.bool("retryable", false) } }
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8]
    private var needsComma = false

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Writes one JSON object whose members `body` adds.
    public mutating func object(_ body: (inout JSONWriter) -> Void) {
        bytes.append(UInt8(ascii: "{"))
        let outer = needsComma
        needsComma = false
        body(&self)
        needsComma = outer
        bytes.append(UInt8(ascii: "}"))
    }

    public mutating func string(_ key: StaticString, _ value: String?) {
        member(key)
        if let value { appendString(value) } else { appendRaw("null") }
    }

    public mutating func int(_ key: StaticString, _ value: Int?) {
        member(key)
        guard let value else { return appendRaw("null") }
        appendRaw(String(value))
    }

    public mutating func bool(_ key: StaticString, _ value: Bool) {
        member(key)
        appendRaw(value ? "true" : "false")
    }

    /// `key: true|false`, or `null` when unknown.
    public mutating func optionalBool(_ key: StaticString, _ value: Bool?) {
        member(key)
        appendRaw(value.map { $0 ? "true" : "false" } ?? "null")
    }

    public mutating func object(_ key: StaticString, _ body: (inout JSONWriter) -> Void) {
        member(key)
        object(body)
    }

    /// Writes `key: [ ... ]` with one object per element.
    public mutating func array<Element>(_ key: StaticString, _ elements: [Element], _ body: (inout JSONWriter, Element) -> Void) {
        member(key)
        bytes.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            body(&self, element)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Writes a top-level array with one element per item (for documents that are arrays).
    public mutating func rawArray<Element>(_ elements: [Element], _ body: (inout JSONWriter, Element) -> Void) {
        bytes.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            body(&self, element)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Writes `key: ["a", "b"]`.
    public mutating func strings(_ key: StaticString, _ values: [String]) {
        member(key)
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            appendString(value)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Writes `key: <value>` where `value` is JSON text stored earlier (an attribution object):
    /// written only when it parses as a JSON object, else `null`, so stored text can never
    /// break the document.
    public mutating func storedObject(_ key: StaticString, _ text: String?) {
        member(key)
        guard let text, let object = try? JSONValue.parse(Array(text.utf8)), case .object = object else {
            appendRaw("null")
            return
        }
        bytes.append(contentsOf: object.keysSorted.serialized())
    }

    /// Keys are this program's own constants: written as they are (a debug build checks that
    /// none needs escaping).
    private mutating func member(_ key: StaticString) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
        key.withUTF8Buffer { utf8 in
            assert(!ByteScan.needsJSONEscape(utf8), "JSON key \(key) needs escaping")
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: utf8)
            bytes.append(UInt8(ascii: "\""))
            bytes.append(UInt8(ascii: ":"))
        }
    }

    private mutating func appendRaw(_ text: StaticString) { text.withUTF8Buffer { bytes.append(contentsOf: $0) } }

    private mutating func appendRaw(_ text: String) { bytes.append(contentsOf: text.utf8) }

    private mutating func appendString(_ text: String) {
        // Most keys and values (ids, codes, tokens, timestamps) need no escaping: checked eight
        // bytes at a time and copied whole.
        // Read in place (copying the string to call `withUTF8` costs a retain and a release).
        let copied = text.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            if ByteScan.needsJSONEscape(utf8) { return false }
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: utf8)
            bytes.append(UInt8(ascii: "\""))
            return true
        }
        if copied == true { return }
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x00..<0x20, 0x7F:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
