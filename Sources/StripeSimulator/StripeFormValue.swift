import HTTPCore
import HTTPRouting

/// A Stripe form body decoded with Stripe's nested-parameter rules (those of Rack):
/// `a[b][c]=v` nests dictionaries, `a[0][b]=v` with consecutive integer keys from 0 becomes an
/// array, `a[]=v` appends; `+` and `%20` are spaces.
public indirect enum StripeFormValue: Sendable, Equatable {
    case string(String)
    case dictionary([String: StripeFormValue])
    case array([StripeFormValue])

    /// The member `key` of a dictionary.
    public subscript(key: String) -> StripeFormValue? {
        if case .dictionary(let members) = self { return members[key] }
        return nil
    }

    /// The element at `index` of an array.
    public subscript(index: Int) -> StripeFormValue? {
        if case .array(let elements) = self, elements.indices.contains(index) { return elements[index] }
        return nil
    }

    /// The value when it is a string.
    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The value when it is a dictionary of strings (metadata).
    public var stringDictionary: [String: String]? {
        guard case .dictionary(let members) = self else { return nil }
        var out: [String: String] = [:]
        for (key, value) in members {
            guard let string = value.string else { return nil }
            out[key] = string
        }
        return out
    }

    /// The keys of a dictionary, sorted.
    public var keys: [String] {
        if case .dictionary(let members) = self { return members.keys.sorted() }
        return []
    }

    /// Decodes a whole body into a top-level dictionary.
    /// - Throws: `StripeSimulatorError` (`.invalidParameter`) for an unbalanced bracket or a key used both as a value and a container.
    public static func decode(_ body: String) throws -> StripeFormValue {
        var root = Node.dictionary([:])
        for pair in FormURLEncoding.decode(body) {
            let path = try parseKey(pair.name)
            try root.insert(pair.value, at: path[...], fullKey: pair.name)
        }
        return root.value
    }

    private static func parseKey(_ key: String) throws -> [String] {
        guard let open = key.firstIndex(of: "[") else {
            guard !key.isEmpty, !key.contains("]") else { throw StripeSimulatorError(.invalidParameter(param: key), "Invalid parameter name") }
            return [key]
        }
        var path = [String(key[..<open])]
        guard !path[0].isEmpty else { throw StripeSimulatorError(.invalidParameter(param: key), "Invalid parameter name") }
        var rest = key[open...]
        while !rest.isEmpty {
            guard rest.first == "[", let close = rest.firstIndex(of: "]") else {
                throw StripeSimulatorError(.invalidParameter(param: key), "Invalid array or hash syntax in parameter name")
            }
            let segment = rest[rest.index(after: rest.startIndex)..<close]
            guard !segment.contains("[") else {
                throw StripeSimulatorError(.invalidParameter(param: key), "Invalid array or hash syntax in parameter name")
            }
            path.append(String(segment))
            rest = rest[rest.index(after: close)...]
        }
        return path
    }

    /// The mutable tree while decoding; integer-keyed dictionaries become arrays at the end.
    private enum Node {
        case leaf(String)
        case dictionary([String: Node])
        case list([Node])

        mutating func insert(_ value: String, at path: ArraySlice<String>, fullKey: String) throws {
            guard let head = path.first else {
                self = .leaf(value)
                return
            }
            let tail = path.dropFirst()
            switch self {
            case .dictionary(var members) where !head.isEmpty:
                var child = members[head] ?? (tail.isEmpty ? .leaf("") : (tail.first == "" ? .list([]) : .dictionary([:])))
                try child.insert(value, at: tail, fullKey: fullKey)
                members[head] = child
                self = .dictionary(members)
            case .list(var elements) where head.isEmpty:
                var child: Node = tail.isEmpty ? .leaf("") : .dictionary([:])
                try child.insert(value, at: tail, fullKey: fullKey)
                elements.append(child)
                self = .list(elements)
            case .leaf:
                throw StripeSimulatorError(.invalidParameter(param: fullKey), "Invalid parameter: a value and a hash share one name")
            default:
                throw StripeSimulatorError(.invalidParameter(param: fullKey), "Invalid array or hash syntax in parameter name")
            }
        }

        var value: StripeFormValue {
            switch self {
            case .leaf(let string): return .string(string)
            case .list(let elements): return .array(elements.map(\.value))
            case .dictionary(let members):
                let indices = members.keys.compactMap { Int($0) }.sorted()
                if !members.isEmpty, indices.count == members.count, indices == Array(0..<members.count),
                    members.keys.allSatisfy({ String(Int($0) ?? -1) == $0 })
                {
                    return .array(indices.compactMap { members[String($0)]?.value })
                }
                return .dictionary(members.mapValues(\.value))
            }
        }
    }
}
