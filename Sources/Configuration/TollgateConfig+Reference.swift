import JSON
extension TollgateConfig {
    /// The effective configuration as pretty-printed JSON (sorted keys, the file's key names),
    /// every secret replaced by `"********"` (or null when unset), for `tollgate config check`.
    public func maskedJSON() -> String {
        var root: [String: JSONValue] = [:]
        for key in ConfigSchema.keys {
            var value = key.encode(self)
            if key.isSecret {
                value = Self.masked(value)
            } else if let maskNested = key.maskNested {
                value = maskNested(value)
            }
            Self.insert(value, at: key.path.split(separator: ".").map(String.init)[...], into: &root)
        }
        return JSONValue.sortedObject(root).prettyPrinted()
    }

    /// Every configuration key: its path, environment variable, type (with ", required outside
    /// demo mode" where so), default (compact JSON; nil when required or unset), and whether it is a secret (then also `<key>_file` /
    /// `<VARIABLE>_FILE`). For generating and checking the configuration reference in docs/CONFIGURATION.md.
    public static func documentedKeys() -> [(path: String, env: String, type: String, default: String?, secret: Bool)] {
        let defaults = TollgateConfig()
        return ConfigSchema.keys.map { key in
            let value = key.encode(defaults)
            let shown: String?
            switch value {
            case .null: shown = nil
            case .string(let string) where string.isEmpty: shown = nil
            default: shown = key.isRequired ? nil : value.compactPrinted()
            }
            let type = key.kind.documentation + (key.isRequired ? ", required outside demo mode" : "")
            return (key.path, key.environmentName, type, shown, key.isSecret)
        }
    }

    /// `TOLLGATE_*` variables that are not keys (`TOLLGATE_CONFIG`).
    public static var documentedNonKeyVariables: [String] {
        ConfigSchema.nonKeyEnvironmentVariables.sorted()
    }

    private static let mask = "********"

    static func masked(_ value: JSONValue) -> JSONValue {
        switch value {
        case .null: return .null
        case .string(let string): return string.isEmpty ? .null : .string(mask)
        case .array(let items): return .array(items.map { _ in .string(mask) })
        default: return .string(mask)
        }
    }

    private static func insert(_ value: JSONValue, at path: ArraySlice<String>, into object: inout [String: JSONValue]) {
        guard let first = path.first else { return }
        if path.count == 1 {
            object[first] = value
            return
        }
        var child: [String: JSONValue] = [:]
        if let existing = object[first]?.objectMembers { child = existing }
        insert(value, at: path.dropFirst(), into: &child)
        object[first] = .sortedObject(child)
    }
}
