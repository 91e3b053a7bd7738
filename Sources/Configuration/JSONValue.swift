import Foundation

/// A parsed JSON value, as read from the configuration file or an environment variable.
///
/// Foundation's `JSONSerialization` hands back `NSNumber` for both numbers and booleans;
/// `init(foundation:)` tells them apart by the boolean's class, which works on Linux and Darwin.
enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The class `JSONSerialization` uses for `true`/`false` (`__NSCFBoolean` on both platforms).
    private static let booleanClass = ObjectIdentifier(type(of: NSNumber(value: true)))

    /// Converts the output of `JSONSerialization.jsonObject(with:)`; nil for anything that is not JSON.
    init?(foundation value: Any) {
        switch value {
        case is NSNull:
            self = .null
        case let string as String:
            self = .string(string)
        case let number as NSNumber:
            if ObjectIdentifier(type(of: number)) == JSONValue.booleanClass {
                self = .bool(number.boolValue)
                return
            }
            switch String(cString: number.objCType) {
            case "d", "f":
                self = .double(number.doubleValue)
            case "Q":
                let unsigned = number.uint64Value
                self = unsigned <= UInt64(Int.max) ? .int(Int(unsigned)) : .double(number.doubleValue)
            default:
                self = .int(number.intValue)
            }
        case let array as [Any]:
            var items: [JSONValue] = []
            items.reserveCapacity(array.count)
            for element in array {
                guard let item = JSONValue(foundation: element) else { return nil }
                items.append(item)
            }
            self = .array(items)
        case let dictionary as [String: Any]:
            var members: [String: JSONValue] = [:]
            for (key, element) in dictionary {
                guard let item = JSONValue(foundation: element) else { return nil }
                members[key] = item
            }
            self = .object(members)
        default:
            return nil
        }
    }

    /// Parses JSON text; on failure the message carries line and column when Foundation gives an offset.
    static func parse(_ data: Data) -> Result<JSONValue, JSONParseFailure> {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            return .failure(JSONParseFailure(data: data, error: error))
        }
        guard let value = JSONValue(foundation: object) else {
            return .failure(JSONParseFailure(message: "not valid JSON"))
        }
        return .success(value)
    }

    /// The value as an integer, when it is one (an integral double such as `8080.0` counts).
    var integerValue: Int? {
        switch self {
        case .int(let value): return value
        case .double(let value):
            guard value.rounded() == value, abs(value) < 9.0e15 else { return nil }
            return Int(value)
        default: return nil
        }
    }

    /// A short human description for error messages: strings quoted (and cut), containers by kind.
    var shortDescription: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .int(let value): return String(value)
        case .double(let value): return String(value)
        case .string(let value):
            let cut = value.count > 60 ? String(value.prefix(57)) + "..." : value
            return JSONValue.quoted(cut)
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The kind of value without its content, for messages about secrets.
    var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int, .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// `value` as a JSON string literal.
    static func quoted(_ value: String) -> String {
        var out = "\""
        out.reserveCapacity(value.utf8.count + 2)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
        return out
    }

    /// Pretty-printed JSON with keys sorted, two-space indentation, slashes unescaped.
    func prettyPrinted() -> String {
        var out = ""
        write(to: &out, indent: 0)
        return out
    }

    /// Single-line JSON with keys sorted (`["a", "b"]`, `{"k": 1}`).
    func compactPrinted() -> String {
        switch self {
        case .null, .bool, .int, .double: return shortDescription
        case .string(let value): return JSONValue.quoted(value)
        case .array(let items): return "[" + items.map { $0.compactPrinted() }.joined(separator: ", ") + "]"
        case .object(let members):
            let parts = members.keys.sorted().map { JSONValue.quoted($0) + ": " + members[$0, default: .null].compactPrinted() }
            return "{" + parts.joined(separator: ", ") + "}"
        }
    }

    private func write(to out: inout String, indent: Int) {
        switch self {
        case .null, .bool, .int, .double:
            out += shortDescription
        case .string(let value):
            out += JSONValue.quoted(value)
        case .array(let items):
            guard !items.isEmpty else { out += "[]"; return }
            out += "[\n"
            for (index, item) in items.enumerated() {
                out += String(repeating: "  ", count: indent + 1)
                item.write(to: &out, indent: indent + 1)
                out += index == items.count - 1 ? "\n" : ",\n"
            }
            out += String(repeating: "  ", count: indent) + "]"
        case .object(let members):
            guard !members.isEmpty else { out += "{}"; return }
            out += "{\n"
            let keys = members.keys.sorted()
            for (index, key) in keys.enumerated() {
                out += String(repeating: "  ", count: indent + 1) + JSONValue.quoted(key) + ": "
                members[key, default: .null].write(to: &out, indent: indent + 1)
                out += index == keys.count - 1 ? "\n" : ",\n"
            }
            out += String(repeating: "  ", count: indent) + "}"
        }
    }
}

/// Why JSON text could not be parsed, with the line and column when they are known.
struct JSONParseFailure: Error, Sendable, Equatable {
    let message: String

    init(message: String) {
        self.message = message
    }

    /// Turns Foundation's "around character N" into "line L, column C".
    init(data: Data, error: any Error) {
        let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            ?? "not valid JSON"
        guard let offset = JSONParseFailure.characterOffset(in: detail) else {
            self.message = detail
            return
        }
        var line = 1
        var column = 1
        for byte in data.prefix(offset) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        let reason = detail.components(separatedBy: " around character").first ?? detail
        self.message = "\(reason) at line \(line), column \(column)"
    }

    private static func characterOffset(in text: String) -> Int? {
        guard let range = text.range(of: "character ") else { return nil }
        let digits = text[range.upperBound...].prefix { $0.isNumber }
        return Int(digits)
    }
}
