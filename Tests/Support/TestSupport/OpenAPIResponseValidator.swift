import Foundation

/// Validates HTTP responses against an OpenAPI 3.1 document (a JSON Schema 2020-12 subset).
///
/// The operation is found by method and path (`{name}` matches one segment; a final `{path}`
/// matches the rest of the path; literal segments win over templated ones), the response by
/// status (`"404"`, then `"4XX"`, then `"default"`), the media type by the response's
/// `Content-Type` (wildcard keys such as `text/*` allowed). JSON bodies are checked against the
/// media type's schema with these keywords: `$ref` (local), `type`, `enum`, `const`, `required`,
/// `properties`, `additionalProperties`, `items`, `minItems`, `maxItems`, `minLength`,
/// `maxLength`, `pattern`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`,
/// `format` (`date-time`, `uuid`, `email`, `uri`), `allOf`, `anyOf`, `oneOf` (with OpenAPI's
/// `discriminator`) and `not`. Other keywords are ignored.
public struct OpenAPIResponseValidator: Sendable {
    /// The document is JSON but not an OpenAPI document this validator can use.
    public struct DocumentError: Error, CustomStringConvertible {
        /// What is wrong with the document.
        public let description: String
    }

    /// How deeply schemas may nest (counting each `$ref` followed) before validation gives up.
    private static let maxDepth = 64
    private let document: JSONNode

    /// Reads `documentData`, an OpenAPI 3.1 document in JSON.
    /// - Throws: `JSONSerialization`'s error when it is not JSON, or `DocumentError` when it has
    ///   no `paths` object.
    public init(documentData: Data) throws {
        let object = try JSONSerialization.jsonObject(with: documentData, options: [.fragmentsAllowed])
        document = JSONNode(object)
        guard document["paths"]?.objectValue != nil else {
            throw DocumentError(description: "the OpenAPI document has no `paths` object")
        }
    }

    /// Problems with one response; empty when it conforms.
    ///
    /// - Parameters:
    ///   - method: the request's method, any case. `HEAD` falls back to the `get` operation.
    ///   - path: the request's path; a query string is ignored.
    ///   - status: the response's status code.
    ///   - contentType: the response's `Content-Type` header, if any.
    ///   - body: the response's body.
    public func problems(method: String, path: String, status: Int, contentType: String?, body: [UInt8]) -> [String] {
        let method = method.lowercased()
        let path = String(path.prefix { $0 != "?" })
        let label = "\(method.uppercased()) \(path)"
        guard let operation = operation(method: method, path: path) else { return ["no operation for \(label)"] }
        let range = "\(status / 100)XX"
        guard let responses = deref(operation["responses"])?.objectValue,
            let entry = responses[String(status)] ?? responses[range] ?? responses[range.lowercased()] ?? responses["default"]
        else { return ["status \(status) is not documented for \(label)"] }
        guard let response = deref(entry) else { return ["the response for status \(status) of \(label) has an unresolvable $ref"] }

        let ignoresBody = method == "head" || (300..<400).contains(status)
        guard let content = response["content"]?.objectValue, !content.isEmpty else {
            if body.isEmpty || ignoresBody { return [] }
            return ["status \(status) of \(label) documents no body, but the response has \(body.count) bytes"]
        }
        guard let contentType else {
            return ignoresBody ? [] : ["the response has no Content-Type; \(label) \(status) documents \(content.keys.sorted())"]
        }
        let mediaType = Self.mediaType(contentType)
        guard let media = Self.media(for: mediaType, in: content) else {
            return ["Content-Type \(mediaType) is not documented for \(label) \(status) (documented: \(content.keys.sorted()))"]
        }
        guard !ignoresBody, let schema = media["schema"], mediaType == "application/json" || mediaType.hasSuffix("+json") else { return [] }
        guard let parsed = try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]) else {
            return ["the body is not valid JSON (\(body.count) bytes)"]
        }
        var problems: [String] = []
        validate(JSONNode(parsed), against: schema, at: "", depth: 0, into: &problems)
        return problems
    }

    /// Problems with `json` as an instance of the document's component schema `name`
    /// (`#/components/schemas/<name>`); empty when it conforms.
    public func problems(ofJSON json: Data, againstSchemaNamed name: String) -> [String] {
        guard let schema = resolve("#/components/schemas/" + name) else { return ["the document has no schema \(name)"] }
        guard let parsed = try? JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed]) else {
            return ["not valid JSON (\(json.count) bytes)"]
        }
        var problems: [String] = []
        validate(JSONNode(parsed), against: schema, at: "", depth: 0, into: &problems)
        return problems
    }
}

// MARK: - Finding the operation and the response

extension OpenAPIResponseValidator {
    private func operation(method: String, path: String) -> JSONNode? {
        guard let paths = document["paths"]?.objectValue else { return nil }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        var best: (score: [Int], template: String, operation: JSONNode)?
        for (template, item) in paths {
            guard let score = Self.matchScore(template: template, segments: segments),
                let item = deref(item),
                let operation = item[method] ?? (method == "head" ? item["get"] : nil)
            else { continue }
            if let current = best, !current.score.lexicographicallyPrecedes(score),
                current.score != score || current.template < template
            {
                continue
            }
            best = (score, template, operation)
        }
        return best.flatMap { deref($0.operation) }
    }

    /// How specifically `template` matches the path (per segment: 2 literal, 1 `{param}`,
    /// 0 a final `{path}` taking the rest), compared lexicographically; nil when it does not match.
    private static func matchScore(template: String, segments: [Substring]) -> [Int]? {
        let parts = template.split(separator: "/", omittingEmptySubsequences: false)
        var score: [Int] = []
        for (index, part) in parts.enumerated() {
            let isParameter = part.count > 2 && part.hasPrefix("{") && part.hasSuffix("}")
            if isParameter && part == "{path}" && index == parts.count - 1 {
                guard index < segments.count, !segments[index...].joined(separator: "/").isEmpty else { return nil }
                return score + [0]
            }
            guard index < segments.count, isParameter ? !segments[index].isEmpty : part == segments[index] else { return nil }
            score.append(isParameter ? 1 : 2)
        }
        return parts.count == segments.count ? score : nil
    }

    /// The media type of a `Content-Type` value: before any `;`, trimmed, lowercased.
    private static func mediaType(_ value: String) -> String {
        let type = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return type.trimmingCharacters(in: .whitespaces).lowercased()
    }

    private static func media(for type: String, in content: [String: JSONNode]) -> JSONNode? {
        let byType = Dictionary(content.map { (mediaType($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
        let major = type.split(separator: "/").first.map(String.init) ?? type
        return byType[type] ?? byType["\(major)/*"] ?? byType["*/*"]
    }
}

// MARK: - References

extension OpenAPIResponseValidator {
    /// The node a local reference (`#/components/schemas/A~1B`) points at.
    private func resolve(_ reference: String) -> JSONNode? {
        guard reference.hasPrefix("#") else { return nil }
        var node = document
        for token in reference.dropFirst().split(separator: "/") {
            let key = (token.removingPercentEncoding ?? String(token))
                .replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            switch node {
            case .object(let members): guard let next = members[key] else { return nil }; node = next
            case .array(let items): guard let i = Int(key), items.indices.contains(i) else { return nil }; node = items[i]
            default: return nil
            }
        }
        return node
    }

    /// `node` with its `$ref` chain followed (for path items, responses and the like).
    private func deref(_ node: JSONNode?) -> JSONNode? {
        var node = node
        for _ in 0..<Self.maxDepth {
            guard let reference = node?["$ref"]?.stringValue else { return node }
            node = resolve(reference)
        }
        return nil
    }
}

// MARK: - Schema validation

extension OpenAPIResponseValidator {
    private func validate(_ value: JSONNode, against schema: JSONNode, at location: String, depth: Int, into problems: inout [String]) {
        let here = location.isEmpty ? "/" : location
        guard depth <= Self.maxDepth else {
            problems.append("\(here): schemas nest deeper than \(Self.maxDepth) levels (a $ref cycle?)")
            return
        }
        let keywords: [String: JSONNode]
        switch schema {
        case .bool(true): return
        case .bool(false): problems.append("\(here): no value is allowed here"); return
        case .object(let members): keywords = members
        default: problems.append("\(here): the schema is neither an object nor a boolean"); return
        }
        if let reference = keywords["$ref"]?.stringValue {
            if let target = resolve(reference) {
                validate(value, against: target, at: location, depth: depth + 1, into: &problems)
            } else {
                problems.append("\(here): cannot resolve $ref \(reference)")
            }
        }
        if let type = keywords["type"] {
            let names = type.stringValue.map { [$0] } ?? type.arrayValue?.compactMap(\.stringValue) ?? []
            if !names.isEmpty, !names.contains(where: value.hasType) {
                problems.append("\(here): expected \(names.joined(separator: " or ")), got \(value.described)")
            }
        }
        if let allowed = keywords["enum"]?.arrayValue, !allowed.contains(value) {
            problems.append("\(here): \(value.described) is not one of \(allowed.map(\.brief).joined(separator: ", "))")
        }
        if let constant = keywords["const"], constant != value {
            problems.append("\(here): expected \(constant.brief), got \(value.described)")
        }
        switch value {
        case .string(let string): checkString(string, keywords, here, &problems)
        case .number(let number): checkNumber(number, keywords, here, &problems)
        case .object(let members): checkObject(members, keywords, location, depth, &problems)
        case .array(let items): checkArray(items, keywords, location, depth, &problems)
        case .null, .bool: break
        }
        checkCombinators(value, keywords, location, depth, &problems)
    }

    private func checkString(_ string: String, _ keywords: [String: JSONNode], _ here: String, _ problems: inout [String]) {
        Self.checkCount(string.unicodeScalars.count, "characters", "Length", keywords, here, &problems)
        if let pattern = keywords["pattern"]?.stringValue {
            switch Self.search(pattern, in: string) {
            case nil: problems.append("\(here): the schema's pattern \(pattern) is not a valid regular expression")
            case false?: problems.append("\(here): \(JSONNode.string(string).brief) does not match pattern \(pattern)")
            case true?: break
            }
        }
        if let format = keywords["format"]?.stringValue, !Self.conforms(string, toFormat: format) {
            problems.append("\(here): \(JSONNode.string(string).brief) is not a valid \(format)")
        }
    }

    private func checkNumber(_ number: Double, _ keywords: [String: JSONNode], _ here: String, _ problems: inout [String]) {
        let shown = JSONNode.number(number).brief
        let limits: [(String, String, (Double, Double) -> Bool)] = [
            ("minimum", "is less than", { $0 < $1 }), ("maximum", "is greater than", { $0 > $1 }),
            ("exclusiveMinimum", "is not greater than", { $0 <= $1 }), ("exclusiveMaximum", "is not less than", { $0 >= $1 })
        ]
        for (keyword, failure, fails) in limits {
            if let limit = keywords[keyword]?.numberValue, fails(number, limit) {
                problems.append("\(here): \(shown) \(failure) \(keyword) \(JSONNode.number(limit).brief)")
            }
        }
    }

    private func checkObject(
        _ members: [String: JSONNode], _ keywords: [String: JSONNode], _ location: String, _ depth: Int, _ problems: inout [String]
    ) {
        let here = location.isEmpty ? "/" : location
        for name in keywords["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where members[name] == nil {
            problems.append("\(here): missing required property \"\(name)\"")
        }
        let properties = keywords["properties"]?.objectValue ?? [:]
        let additional = keywords["additionalProperties"]
        for (name, member) in members.sorted(by: { $0.key < $1.key }) {
            let child = Self.appending(name, to: location)
            if let schema = properties[name] {
                validate(member, against: schema, at: child, depth: depth + 1, into: &problems)
            } else if case .bool(false)? = additional {
                problems.append("\(child): property \"\(name)\" is not allowed (additionalProperties is false)")
            } else if let additional {
                validate(member, against: additional, at: child, depth: depth + 1, into: &problems)
            }
        }
    }

    private func checkArray(_ items: [JSONNode], _ keywords: [String: JSONNode], _ location: String, _ depth: Int, _ problems: inout [String]) {
        let here = location.isEmpty ? "/" : location
        Self.checkCount(items.count, "items", "Items", keywords, here, &problems)
        if let schema = keywords["items"], schema.arrayValue == nil {
            for (index, item) in items.enumerated() {
                validate(item, against: schema, at: Self.appending(String(index), to: location), depth: depth + 1, into: &problems)
            }
        }
    }

    /// `min<suffix>` and `max<suffix>` (minLength, maxItems...) against `count`.
    private static func checkCount(
        _ count: Int, _ unit: String, _ suffix: String, _ keywords: [String: JSONNode], _ here: String, _ problems: inout [String]
    ) {
        if let min = keywords["min" + suffix]?.numberValue, Double(count) < min {
            problems.append("\(here): \(count) \(unit), fewer than min\(suffix) \(Int(min))")
        }
        if let max = keywords["max" + suffix]?.numberValue, Double(count) > max {
            problems.append("\(here): \(count) \(unit), more than max\(suffix) \(Int(max))")
        }
    }

    private func checkCombinators(_ value: JSONNode, _ keywords: [String: JSONNode], _ location: String, _ depth: Int, _ problems: inout [String]) {
        let here = location.isEmpty ? "/" : location
        for schema in keywords["allOf"]?.arrayValue ?? [] {
            validate(value, against: schema, at: location, depth: depth + 1, into: &problems)
        }
        if let branches = keywords["anyOf"]?.arrayValue {
            let results = branches.map { branchProblems(value, $0, location, depth) }
            if !results.contains(where: \.isEmpty) {
                problems.append("\(here): matches none of the \(branches.count) anyOf schemas\(Self.closest(results))")
            }
        }
        if let branches = keywords["oneOf"]?.arrayValue {
            if let discriminator = keywords["discriminator"], let property = discriminator["propertyName"]?.stringValue {
                checkDiscriminated(value, branches, discriminator, property, location, depth, &problems)
            } else {
                let results = branches.map { branchProblems(value, $0, location, depth) }
                let matching = results.indices.filter { results[$0].isEmpty }
                if matching.isEmpty {
                    problems.append("\(here): matches none of the \(branches.count) oneOf schemas\(Self.closest(results))")
                } else if matching.count > 1 {
                    problems.append(
                        "\(here): matches \(matching.count) oneOf schemas (branches \(matching.map(String.init).joined(separator: ", "))); exactly one must match"
                    )
                }
            }
        }
        if let schema = keywords["not"], branchProblems(value, schema, location, depth).isEmpty {
            problems.append("\(here): matches the schema under \"not\"")
        }
    }

    /// `oneOf` with an OpenAPI discriminator: the branch is chosen by the property's value.
    private func checkDiscriminated(
        _ value: JSONNode, _ branches: [JSONNode], _ discriminator: JSONNode, _ property: String,
        _ location: String, _ depth: Int, _ problems: inout [String]
    ) {
        let here = location.isEmpty ? "/" : location
        guard case .object(let members) = value else {
            problems.append("\(here): expected an object with discriminator \"\(property)\", got \(value.described)")
            return
        }
        guard let tag = members[property]?.stringValue else {
            problems.append("\(here): missing string discriminator property \"\(property)\"")
            return
        }
        guard let branch = discriminatedBranch(tag, branches, discriminator, property) else {
            problems.append("\(Self.appending(property, to: location)): \(JSONNode.string(tag).brief) names no oneOf schema")
            return
        }
        validate(value, against: branch, at: location, depth: depth + 1, into: &problems)
    }

    private func discriminatedBranch(_ tag: String, _ branches: [JSONNode], _ discriminator: JSONNode, _ property: String) -> JSONNode? {
        if let target = discriminator["mapping"]?[tag]?.stringValue {
            return resolve(target.hasPrefix("#") ? target : "#/components/schemas/\(target)")
        }
        let byValue = branches.first { branch in
            guard let schema = deref(deref(branch)?["properties"]?[property]) else { return false }
            return schema["const"] == .string(tag) || schema["enum"] == .array([.string(tag)])
        }
        return byValue ?? branches.first { $0["$ref"]?.stringValue?.hasSuffix("/\(tag)") == true }
    }

    private func branchProblems(_ value: JSONNode, _ schema: JSONNode, _ location: String, _ depth: Int) -> [String] {
        var problems: [String] = []
        validate(value, against: schema, at: location, depth: depth + 1, into: &problems)
        return problems
    }

    /// A note on the branch with the fewest problems, for anyOf/oneOf failures.
    private static func closest(_ results: [[String]]) -> String {
        guard let best = results.indices.min(by: { results[$0].count < results[$1].count }) else { return "" }
        return " (closest, branch \(best): \(results[best].joined(separator: "; ")))"
    }

    private static func appending(_ token: String, to location: String) -> String {
        location + "/" + token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }
}

// MARK: - Patterns and formats

extension OpenAPIResponseValidator {
    /// Whether `pattern` matches anywhere in `string` (JSON Schema's unanchored search); nil when
    /// the pattern does not compile.
    private static func search(_ pattern: String, in string: String) -> Bool? {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return nil }
        return expression.firstMatch(in: string, range: NSRange(string.startIndex..., in: string)) != nil
    }

    private static func conforms(_ string: String, toFormat format: String) -> Bool {
        switch format {
        case "date-time": return isDateTime(string)
        case "uuid": return search(#"\A[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\z"#, in: string) == true
        case "email":
            let sides = string.split(separator: "@", omittingEmptySubsequences: false)
            return sides.count == 2 && !sides[0].isEmpty && !sides[1].isEmpty
        case "uri": return search(#"\A[A-Za-z][A-Za-z0-9+.\-]*:"#, in: string) == true
        default: return true
        }
    }

    /// RFC 3339 `date-time`: `2026-11-21T18:00:00Z`, with optional fractional seconds, `Z` or `±hh:mm`.
    private static func isDateTime(_ string: String) -> Bool {
        let shape = #"\A[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+\-][0-9]{2}:[0-9]{2})\z"#
        guard search(shape, in: string) == true else { return false }
        let digits = Array(string.utf8)
        func number(_ start: Int, _ count: Int, from bytes: [UInt8] = digits) -> Int {
            bytes[start..<start + count].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        }
        let (year, month, day) = (number(0, 4), number(5, 2), number(8, 2))
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...12).contains(month), (1...monthDays[month - 1]).contains(day),
            number(11, 2) < 24, number(14, 2) < 60, number(17, 2) <= 60
        else { return false }
        let last = digits.last.map { $0 | 0x20 }
        if last == UInt8(ascii: "z") { return true }
        let offset = Array(digits.suffix(5))
        return number(0, 2, from: offset) < 24 && number(3, 2, from: offset) < 60
    }
}

// MARK: - The JSON tree

extension OpenAPIResponseValidator {
    /// A parsed JSON value, Sendable (unlike `JSONSerialization`'s `[String: Any]`).
    fileprivate indirect enum JSONNode: Sendable, Equatable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([JSONNode])
        case object([String: JSONNode])

        /// Converts `JSONSerialization` output. Booleans arrive as `NSNumber`s whose `objCType`
        /// is `c` (on Linux as on Darwin), which tells them from the numbers 0 and 1.
        init(_ value: Any) {
            switch value {
            case is NSNull: self = .null
            case let string as String: self = .string(string)
            case let number as NSNumber:
                self = String(cString: number.objCType) == "c" ? .bool(number.boolValue) : .number(number.doubleValue)
            case let array as [Any]: self = .array(array.map(JSONNode.init))
            case let object as [String: Any]: self = .object(object.mapValues(JSONNode.init))
            default: self = .null
            }
        }

        subscript(key: String) -> JSONNode? {
            if case .object(let members) = self { members[key] } else { nil }
        }

        var objectValue: [String: JSONNode]? { if case .object(let members) = self { members } else { nil } }
        var arrayValue: [JSONNode]? { if case .array(let items) = self { items } else { nil } }
        var stringValue: String? { if case .string(let string) = self { string } else { nil } }
        var numberValue: Double? { if case .number(let number) = self { number } else { nil } }

        /// Whether this value is of the JSON Schema type `name` ("integer": no fractional part).
        func hasType(_ name: String) -> Bool {
            switch (name, self) {
            case ("null", .null), ("boolean", .bool), ("number", .number), ("string", .string),
                ("array", .array), ("object", .object):
                true
            case ("integer", .number(let number)): number.isFinite && number.rounded() == number
            default: false
            }
        }

        /// The type and, for scalars, the value: `boolean true`, `string "x"`, `object`.
        var described: String {
            switch self {
            case .null: "null"
            case .bool: "boolean \(brief)"
            case .string: "string \(brief)"
            case .number: "\(hasType("integer") ? "integer" : "number") \(brief)"
            case .array(let items): "array of \(items.count) items"
            case .object: "object"
            }
        }

        /// A short JSON-like rendering for messages.
        var brief: String {
            switch self {
            case .null: "null"
            case .bool(let bool): String(bool)
            case .number(let number):
                number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
            case .string(let string): String(reflecting: string.count > 60 ? String(string.prefix(57)) + "..." : string)
            case .array(let items): "[\(items.count) items]"
            case .object: "{...}"
            }
        }
    }
}
