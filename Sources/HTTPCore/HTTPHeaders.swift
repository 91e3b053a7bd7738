/// An ordered list of header fields with case-insensitive lookup by name.
///
/// Order and repeated fields are preserved as received; lookups compare names ASCII
/// case-insensitively without allocating.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [(name: String, value: String)] {
        didSet { prepared = nil }
    }
    /// The fields' wire form, while they are as they were when it was made (`prepare(tag:)`).
    var prepared: PreparedHeaders?

    public init() { fields = [] }

    public init(_ fields: [(name: String, value: String)]) { self.fields = fields }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    public var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    /// A part of a field value without the spaces and tabs (HTTP's "OWS") around it, e.g. one
    /// entry of a comma-separated list. OWS is bytes (RFC 9110 §5.6.3), so the bytes are read:
    /// a space is trimmed even where a combining mark follows it.
    public static func trimmingOptionalWhitespace(_ part: Substring) -> Substring {
        let isBlank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        let bytes = part.utf8
        guard let first = bytes.firstIndex(where: { !isBlank($0) }), let last = bytes.lastIndex(where: { !isBlank($0) }) else {
            return part[part.endIndex...]
        }
        return part[first..<bytes.index(after: last)]
    }

    /// The first value of the field named `name`, or nil. Reads the fields in place: iterating
    /// them would copy each (name, value) pair, two retains and two releases per field passed.
    public subscript(name: String) -> String? {
        // The wanted name's bytes are found once, not once for every field compared.
        var name = name
        return name.withUTF8 { wanted in
            fields.withUnsafeBufferPointer { fields in
                for index in fields.indices where HTTPHeaders.isNamed(fields[index].name, wanted) {
                    return fields[index].value
                }
                return nil
            }
        }
    }

    /// Every value of the field named `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { HTTPHeaders.equalsIgnoringCase($0.name, name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool { self[name] != nil }

    /// Appends a field, keeping any existing ones with the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces every field named `name` with one field holding `value`: a single such field is
    /// replaced where it stands (and left untouched when it already says exactly that, so a
    /// response shared by many requests, a pre-rendered page, is not copied to be set again);
    /// several are removed and one is added at the end, as is a field that was missing.
    public mutating func set(_ name: String, _ value: String) {
        var found: Int?
        for index in fields.indices where HTTPHeaders.equalsIgnoringCase(fields[index].name, name) {
            guard found == nil else {
                remove(name)
                fields.append((name: name, value: value))
                return
            }
            found = index
        }
        guard let found else {
            fields.append((name: name, value: value))
            return
        }
        if fields[found].name == name, fields[found].value == value { return }
        fields[found] = (name: name, value: value)
    }

    /// Removes every field named `name`.
    public mutating func remove(_ name: String) {
        fields.removeAll { HTTPHeaders.equalsIgnoringCase($0.name, name) }
    }

    /// ASCII case-insensitive comparison, the rule for header names.
    public static func equalsIgnoringCase(_ lhs: String, _ rhs: String) -> Bool {
        // Most names compared differ in length, which a native string knows without a scan.
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        // Native strings are read in place; only a string without contiguous UTF-8 is copied.
        if let equal = rhs.utf8.withContiguousStorageIfAvailable({ isNamed(lhs, $0) }) { return equal }
        var rhs = rhs
        return rhs.withUTF8 { isNamed(lhs, $0) }
    }

    /// Whether field name `name` is `wanted` (UTF-8), ignoring ASCII case; the one place a
    /// `String` name is read as bytes (in place when it can be, else copied).
    @inline(__always)
    private static func isNamed(_ name: String, _ wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        guard name.utf8.count == wanted.count else { return false }
        if let equal = name.utf8.withContiguousStorageIfAvailable({ equalsIgnoringCase($0, wanted) }) { return equal }
        var name = name
        return name.withUTF8 { equalsIgnoringCase($0, wanted) }
    }

    private static func equalsIgnoringCase(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        for index in 0..<a.count {
            let x = a[index], y = b[index]
            if x == y { continue }
            // Letters differ only in bit 0x20; anything else must match exactly.
            if isLetter(x), x | 0x20 == y | 0x20 { continue }
            return false
        }
        return true
    }

    @inline(__always)
    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }
}
