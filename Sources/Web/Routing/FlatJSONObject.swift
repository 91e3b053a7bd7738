/// A JSON object whose members are all plain strings or null, read straight from the body's
/// bytes, so hot-path requests (`POST /api/v1/redeem`) skip Foundation's JSONDecoder.
/// Anything else — escapes, numbers, nested values, duplicate keys, keys not in plain
/// snake_case, invalid UTF-8, broken syntax — is not parsed here (`nil`): the caller falls
/// back to JSONDecoder, which also words the errors, so both paths accept and refuse the same
/// bodies (`StrictJSONMiddleware` refused the non-strict ones before either ran). Whatever this
/// reads is strict RFC 8259 JSON (no escapes, no control characters, valid UTF-8, unique keys,
/// no trailing comma); the `json` fuzz target checks both.
struct FlatJSONObject {
    private var members: [(key: String, value: String?)] = []

    /// The members of `bytes`, or nil when it is not a flat object of plain strings and nulls.
    init?(_ bytes: [UInt8]) {
        var reader = Reader(bytes: bytes)
        reader.skipSpace()
        guard reader.take(UInt8(ascii: "{")) else { return nil }
        reader.skipSpace()
        if !reader.take(UInt8(ascii: "}")) {
            repeat {
                reader.skipSpace()
                guard let key = reader.plainString(), Self.isPlainSnakeCase(key), !members.contains(where: { $0.key == key }) else {
                    return nil
                }
                reader.skipSpace()
                guard reader.take(UInt8(ascii: ":")) else { return nil }
                reader.skipSpace()
                if reader.take(literal: "null") {
                    members.append((key, nil))
                } else if let value = reader.plainString() {
                    members.append((key, value))
                } else {
                    return nil
                }
                reader.skipSpace()
            } while reader.take(UInt8(ascii: ","))
            guard reader.take(UInt8(ascii: "}")) else { return nil }
        }
        reader.skipSpace()
        guard reader.atEnd else { return nil }
    }

    /// `[a-z][a-z0-9]*(_[a-z][a-z0-9]*)*`: the keys JSONDecoder's `convertFromSnakeCase` maps
    /// one to one. It also folds case and underscores (`devicE_id`, `device__id` and `deviceId`
    /// all read as `device_id`), so a body with any other key is left to it: both paths then
    /// read every body the same way.
    private static func isPlainSnakeCase(_ key: String) -> Bool {
        var previous = UInt8(ascii: "_")
        for byte in key.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"): break
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
                if previous == UInt8(ascii: "_") { return false }
            default: return false
            }
            previous = byte
        }
        return previous != UInt8(ascii: "_")
    }

    /// `.some(value)` for a string member, `.some(nil)` for null, nil when absent.
    subscript(key: String) -> String?? {
        guard let member = members.first(where: { $0.key == key }) else { return nil }
        return .some(member.value)
    }

    /// A string member that must be there and not null; nil otherwise.
    func requiredString(_ key: String) -> String? {
        self[key] ?? nil
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool { index == bytes.count }

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func take(literal: StaticString) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard bytes.count - index >= count else { return false }
            let matches = literal.withUTF8Buffer { expected in bytes[index..<index + count].elementsEqual(expected) }
            if matches { index += count }
            return matches
        }

        /// A string without escapes or control characters, as valid UTF-8.
        mutating func plainString() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let text = String(validating: bytes[start..<index], as: UTF8.self)
                    index += 1
                    return text
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
                index += 1
            }
            return nil
        }
    }
}

/// A request body that can also be read from a `FlatJSONObject`, skipping JSONDecoder.
/// `init(flat:)` returns nil for anything it does not take as is (a missing field, say):
/// JSONDecoder then decides, and words the error.
protocol FlatJSONDecodable: Decodable {
    init?(flat: FlatJSONObject)
}
