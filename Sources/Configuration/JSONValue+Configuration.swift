import Foundation
import JSON

/// What the configuration reads from and prints about `JSONValue`s (module JSON): the file's
/// text read strictly, objects as name → value maps (the schema, not the file, orders keys),
/// numbers as integers, and the short descriptions and key-sorted printing messages and
/// `tollgate config check` show.
extension JSONValue {
    /// Parses JSON text strictly (duplicate keys and trailing commas refused); the failure
    /// names the line and column.
    static func parse(_ data: Data) -> Result<JSONValue, JSONParseFailure> {
        do {
            return .success(try JSONValue.parse(Array(data)))
        } catch {
            return .failure(JSONParseFailure(message: error.lineAndColumnDescription))
        }
    }

    /// An object's members by name, or nil for any other value.
    var objectMembers: [String: JSONValue]? {
        guard case .object(let members) = self else { return nil }
        return Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// An object of `members` with its keys sorted.
    static func sortedObject(_ members: [String: JSONValue]) -> JSONValue {
        .object(members.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) })
    }

    /// The value as an integer, when it is one (an integral number such as `8080.0` counts).
    var integerValue: Int? {
        switch self {
        case .integer(let value): return Int(exactly: value)
        case .number(let value):
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
        case .integer(let value): return String(value)
        case .number(let value): return String(value)
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
        case .integer, .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// Pretty-printed JSON with keys sorted, two-space indentation, slashes unescaped.
    func prettyPrinted() -> String {
        String(decoding: keysSorted.prettySerialized(), as: UTF8.self)
    }

    /// Single-line JSON with keys sorted (`["a", "b"]`, `{"k": 1}`).
    func compactPrinted() -> String {
        switch self {
        case .null, .bool, .integer, .number: return shortDescription
        case .string(let value): return JSONValue.quoted(value)
        case .array(let items): return "[" + items.map { $0.compactPrinted() }.joined(separator: ", ") + "]"
        case .object(let members):
            let parts = members.sorted { $0.key < $1.key }.map { JSONValue.quoted($0.key) + ": " + $0.value.compactPrinted() }
            return "{" + parts.joined(separator: ", ") + "}"
        }
    }
}

/// Why the configuration's JSON text could not be read, in words for the person editing it.
struct JSONParseFailure: Error, Sendable, Equatable {
    let message: String
}
