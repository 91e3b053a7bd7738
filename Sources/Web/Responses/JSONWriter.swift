import ByteScan
import JSON

/// Builds compact JSON by hand: exact key order, no reflection, for hot paths (stored JSON text
/// is re-read strictly and written with sorted keys, `storedObject`).
///
///     var json = JSONWriter()
///     json.object { o in o.string("status", "ok"); o.object("error") { e in e.bool("retryable", false) } }
///
/// It writes into a buffer of its own, grown by doubling, and is not copyable: each piece (a
/// member's `,"key":`, a string with its quotes) costs one capacity check and one copy, where an
/// `Array`'s `append` checked uniqueness and capacity for every byte and every slice.
public struct JSONWriter: ~Copyable {
    private var start: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int
    private var needsComma = false

    public init(capacity: Int = 256) {
        self.capacity = max(capacity, 16)
        start = .allocate(capacity: self.capacity)
    }

    deinit { start.deallocate() }

    /// The document written so far.
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: start, count: count)) }

    /// Writes one JSON object whose members `body` adds.
    public mutating func object(_ body: (inout JSONWriter) -> Void) {
        append(UInt8(ascii: "{"))
        let outer = needsComma
        needsComma = false
        body(&self)
        needsComma = outer
        append(UInt8(ascii: "}"))
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
        append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { append(UInt8(ascii: ",")) }
            body(&self, element)
        }
        append(UInt8(ascii: "]"))
    }

    /// Writes a top-level array with one element per item (for documents that are arrays).
    public mutating func rawArray<Element>(_ elements: [Element], _ body: (inout JSONWriter, Element) -> Void) {
        append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { append(UInt8(ascii: ",")) }
            body(&self, element)
        }
        append(UInt8(ascii: "]"))
    }

    /// Writes `key: ["a", "b"]`.
    public mutating func strings(_ key: StaticString, _ values: [String]) {
        member(key)
        append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { append(UInt8(ascii: ",")) }
            appendString(value)
        }
        append(UInt8(ascii: "]"))
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
        object.keysSorted.serialized().withUnsafeBufferPointer { append($0) }
    }

    /// Keys are this program's own constants: written as they are (a debug build checks that
    /// none needs escaping).
    private mutating func member(_ key: StaticString) {
        key.withUTF8Buffer { utf8 in
            assert(!ByteScan.needsJSONEscape(utf8), "JSON key \(key) needs escaping")
            reserve(utf8.count + 4)
            if needsComma { store(UInt8(ascii: ",")) }
            store(UInt8(ascii: "\""))
            store(utf8)
            store(UInt8(ascii: "\""))
            store(UInt8(ascii: ":"))
        }
        needsComma = true
    }

    private mutating func appendRaw(_ text: StaticString) { text.withUTF8Buffer { append($0) } }

    private mutating func appendRaw(_ text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    private mutating func appendString(_ text: String) {
        // Most keys and values (ids, codes, tokens, timestamps) need no escaping: checked eight
        // bytes at a time and copied whole.
        // Read in place (copying the string to call `withUTF8` costs a retain and a release).
        let copied = text.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            if ByteScan.needsJSONEscape(utf8) { return false }
            reserve(utf8.count + 2)
            store(UInt8(ascii: "\""))
            store(utf8)
            store(UInt8(ascii: "\""))
            return true
        }
        if copied == true { return }
        append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): appendEscape(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): appendEscape(UInt8(ascii: "\\"))
            case 0x0A: appendEscape(UInt8(ascii: "n"))
            case 0x0D: appendEscape(UInt8(ascii: "r"))
            case 0x09: appendEscape(UInt8(ascii: "t"))
            case 0x00..<0x20, 0x7F:
                let hex = JSONWriter.hexDigits
                reserve(6)
                store(UInt8(ascii: "\\"))
                store(UInt8(ascii: "u"))
                store(0x30)
                store(0x30)
                store(hex[Int(byte >> 4)])
                store(hex[Int(byte & 0xF)])
            default: append(byte)
            }
        }
        append(UInt8(ascii: "\""))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// A backslash and `letter`.
    private mutating func appendEscape(_ letter: UInt8) {
        reserve(2)
        store(UInt8(ascii: "\\"))
        store(letter)
    }

    // MARK: The buffer

    private mutating func append(_ byte: UInt8) {
        reserve(1)
        store(byte)
    }

    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        reserve(bytes.count)
        store(bytes)
    }

    /// Room for `extra` more bytes: `store` may write that many.
    private mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(to: count + extra) }
    }

    @inline(never)
    private mutating func grow(to needed: Int) {
        let newCapacity = max(needed, capacity * 2)
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.initialize(from: start, count: count)
        start.deallocate()
        start = grown
        capacity = newCapacity
    }

    /// Writes one byte into room `reserve` made.
    private mutating func store(_ byte: UInt8) {
        start[count] = byte
        count += 1
    }

    /// Writes `bytes` into room `reserve` made.
    private mutating func store(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        (start + count).initialize(from: base, count: bytes.count)
        count += bytes.count
    }
}
