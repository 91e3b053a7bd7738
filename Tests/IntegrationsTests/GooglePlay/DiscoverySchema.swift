import Foundation
import Integrations

/// Checks JSON against the schemas of a Google API discovery document (`androidpublisher.v3.json`):
/// every key must be a property of its schema, with the JSON type the property names (int64 and
/// uint64 as decimal strings, `google-datetime` as RFC 3339, int32 as integral numbers).
struct DiscoverySchema {
    let schemas: [String: [String: Any]]

    /// Loads the document's `schemas`.
    init(document: [String: Any]) throws {
        guard let schemas = document["schemas"] as? [String: [String: Any]] else { throw Invalid(message: "no schemas") }
        self.schemas = schemas
    }

    struct Invalid: Error { let message: String }

    /// Every mismatch of `value` against the schema named `name`, as `path: problem` (empty when it fits).
    func problems(_ value: Any, against name: String) -> [String] {
        guard let schema = schemas[name] else { return ["$: no schema \(name)"] }
        return problems(value, schema: schema, path: "$")
    }

    private func problems(_ value: Any, schema: [String: Any], path: String) -> [String] {
        if let ref = schema["$ref"] as? String {
            guard let target = schemas[ref] else { return ["\(path): no schema \(ref)"] }
            return problems(value, schema: target, path: path)
        }
        let type = schema["type"] as? String
        let format = schema["format"] as? String
        switch type {
        case "object":
            guard let object = value as? [String: Any] else { return ["\(path): expected an object, got \(Self.describe(value))"] }
            let properties = schema["properties"] as? [String: [String: Any]] ?? [:]
            let additional = schema["additionalProperties"] as? [String: Any]
            var found: [String] = []
            for key in object.keys.sorted() {
                guard let property = properties[key] ?? additional else {
                    found.append("\(path).\(key): not in the schema \(schema["id"] as? String ?? "")")
                    continue
                }
                found += problems(object[key]!, schema: property, path: "\(path).\(key)")
            }
            return found
        case "array":
            guard let array = value as? [Any] else { return ["\(path): expected an array, got \(Self.describe(value))"] }
            guard let items = schema["items"] as? [String: Any] else { return [] }
            return array.enumerated().flatMap { problems($1, schema: items, path: "\(path)[\($0)]") }
        case "string":
            guard let string = value as? String else { return ["\(path): expected a string, got \(Self.describe(value))"] }
            switch format {
            case "int64": return Int64(string) == nil ? ["\(path): \"\(string)\" is not an int64 string"] : []
            case "uint64": return UInt64(string) == nil ? ["\(path): \"\(string)\" is not a uint64 string"] : []
            case "google-datetime": return RFC3339Check.isDateTime(string) ? [] : ["\(path): \"\(string)\" is not RFC 3339"]
            default: return []
            }
        case "integer":
            guard let number = value as? NSNumber, !(value is String), !Self.isBoolean(number), number.doubleValue.rounded() == number.doubleValue
            else { return ["\(path): expected an integer, got \(Self.describe(value))"] }
            return []
        case "number":
            guard let number = value as? NSNumber, !(value is String), !Self.isBoolean(number) else {
                return ["\(path): expected a number, got \(Self.describe(value))"]
            }
            return []
        case "boolean":
            guard let number = value as? NSNumber, Self.isBoolean(number) else { return ["\(path): expected a boolean, got \(Self.describe(value))"] }
            return []
        case nil where schema["properties"] != nil:
            return problems(value, schema: schema.merging(["type": "object"]) { $1 }, path: path)
        default:
            return []
        }
    }

    private static func isBoolean(_ number: NSNumber) -> Bool {
        let type = String(cString: number.objCType)
        return type == "c" || type == "B"
    }

    private static func describe(_ value: Any) -> String {
        if let number = value as? NSNumber { return isBoolean(number) ? "boolean \(number.boolValue)" : "number \(number)" }
        if value is String { return "string" }
        if value is [Any] { return "array" }
        if value is [String: Any] { return "object" }
        return "\(type(of: value))"
    }
}

/// RFC 3339 date-times as Google writes them (`2023-12-14T22:13:20.123Z`).
enum RFC3339Check {
    static func isDateTime(_ text: String) -> Bool {
        let pattern = #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$"#
        return text.range(of: pattern, options: .regularExpression) != nil
    }
}
