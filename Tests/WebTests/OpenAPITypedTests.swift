import Foundation
import Testing

/// `Public/openapi.json` types every value a generated client reads or writes
/// (swift-openapi-generator makes an untyped `OpenAPIValueContainer` or `OpenAPIObjectContainer`
/// of anything else): every JSON or form body has a schema; every schema has a `type`, a `$ref`
/// or `oneOf` / `anyOf` / `allOf`; an object lists its `properties` or types its
/// `additionalProperties`; a fixed value is a single-value `enum` with its type, never a bare `const`.
@Suite("The OpenAPI document is typed")
struct OpenAPITypedTests {
    static func document() throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: PackagePaths.root + "/Public/openapi.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// Where `schema` (at `location`) leaves a value untyped.
    static func untyped(_ schema: Any, at location: String) -> [String] {
        guard let schema = schema as? [String: Any] else { return ["\(location): not a schema object"] }
        var found: [String] = []
        if schema["const"] != nil { found.append("\(location): const (use a single-value enum with its type)") }
        let combined = ["oneOf", "anyOf", "allOf"].compactMap { schema[$0] as? [Any] }
        if schema["$ref"] == nil, schema["type"] == nil, combined.isEmpty { found.append("\(location): no type") }
        let types = (schema["type"] as? [String]) ?? (schema["type"] as? String).map { [$0] } ?? []
        if types.contains("object"), schema["properties"] == nil, !(schema["additionalProperties"] is [String: Any]) {
            found.append("\(location): an object with neither properties nor typed additionalProperties")
        }
        for (name, property) in schema["properties"] as? [String: Any] ?? [:] { found += untyped(property, at: location + "/" + name) }
        if let items = schema["items"] { found += untyped(items, at: location + "/items") }
        if let additional = schema["additionalProperties"] as? [String: Any] { found += untyped(additional, at: location + "/*") }
        for (key, list) in ["oneOf", "anyOf", "allOf"].compactMap({ key in (schema[key] as? [Any]).map { (key, $0) } }) {
            for (index, branch) in list.enumerated() { found += untyped(branch, at: "\(location)/\(key)/\(index)") }
        }
        return found
    }

    /// Every schema of the document: components, parameters, request and response bodies (JSON and forms).
    static func untyped(in document: [String: Any]) -> [String] {
        var found: [String] = []
        let components = (document["components"] as? [String: Any])?["schemas"] as? [String: Any] ?? [:]
        for (name, schema) in components { found += untyped(schema, at: "#/components/schemas/" + name) }
        for (path, item) in document["paths"] as? [String: Any] ?? [:] {
            for (method, operation) in item as? [String: Any] ?? [:] {
                guard let operation = operation as? [String: Any] else { continue }
                let at = "\(method.uppercased()) \(path)"
                for parameter in operation["parameters"] as? [[String: Any]] ?? [] {
                    found += untyped(parameter["schema"] ?? [:], at: "\(at) parameter \(parameter["name"] ?? "")")
                }
                var bodies: [(String, Any)] = []
                if let request = operation["requestBody"] as? [String: Any] { bodies.append(("request", request)) }
                for (status, response) in operation["responses"] as? [String: Any] ?? [:] { bodies.append((status, response)) }
                for (label, body) in bodies {
                    for (type, media) in (body as? [String: Any])?["content"] as? [String: Any] ?? [:]
                    where type.contains("json") || type == "application/x-www-form-urlencoded" {
                        guard let schema = (media as? [String: Any])?["schema"] else {
                            found.append("\(at) \(label) \(type): no schema")
                            continue
                        }
                        found += untyped(schema, at: "\(at) \(label) \(type)")
                    }
                }
            }
        }
        return found.sorted()
    }

    @Test("No schema of Public/openapi.json leaves a value untyped")
    func everythingTyped() throws {
        let found = Self.untyped(in: try Self.document())
        #expect(found.isEmpty, "\(found.count) untyped:\n\(found.joined(separator: "\n"))")
    }

    @Test("The check finds a bare const, an object without members and a body without a schema")
    func catchesUntyped() {
        let document: [String: Any] = [
            "paths": [
                "/x": [
                    "post": [
                        "requestBody": ["content": ["application/json": [String: Any]()]],
                        "responses": [
                            "200": [
                                "content": [
                                    "application/json": [
                                        "schema": [
                                            "type": "object", "properties": ["status": ["const": "ok"], "details": ["type": "object"]]
                                        ]
                                    ]
                                ]
                            ]
                        ]
                    ]
                ]
            ]
        ]
        let found = Self.untyped(in: document)
        #expect(found.contains { $0.contains("request application/json: no schema") }, "\(found)")
        #expect(found.contains { $0.hasSuffix("/status: const (use a single-value enum with its type)") }, "\(found)")
        #expect(found.contains { $0.hasSuffix("/status: no type") }, "\(found)")
        #expect(found.contains { $0.contains("/details: an object with neither") }, "\(found)")
    }
}
