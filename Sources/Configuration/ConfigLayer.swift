import Foundation
import JSON

/// The values one source (the file, or the environment) sets, by key path, before typing.
struct ConfigLayer {
    /// A value given directly, or the path of a file holding a secret.
    enum Setting: Equatable {
        case inline(JSONValue)
        case file(String)
    }

    struct Entry {
        let setting: Setting
        let source: ConfigError.Source
    }

    private(set) var entries: [String: Entry] = [:]

    /// Records `setting` for `key`; a secret given both inline and as a file in the same layer is a problem.
    mutating func set(_ key: ConfigKey, _ setting: Setting, source: ConfigError.Source, problems: inout [ConfigError.Problem]) {
        if entries[key.path] != nil {
            let forms: String
            switch source {
            case .environment: forms = "both \(key.environmentName) and \(key.environmentName)_FILE are set"
            default: forms = "both \(key.name) and \(key.name)\(ConfigSchema.fileSuffix) are set"
            }
            problems.append(ConfigError.Problem(keyPath: key.path, source: source, message: "\(forms); use only one"))
            return
        }
        entries[key.path] = Entry(setting: setting, source: source)
    }

    /// This layer with `other`'s entries replacing any for the same key (either form).
    func overridden(by other: ConfigLayer) -> ConfigLayer {
        var result = self
        for (path, entry) in other.entries {
            result.entries[path] = entry
        }
        return result
    }
}

extension ConfigLayer {
    /// The layer of a parsed configuration file: walks the object against the schema, reporting
    /// unknown keys (with a suggestion) and sections that are not objects.
    static func fromFile(_ root: JSONValue, source: ConfigError.Source, problems: inout [ConfigError.Problem]) -> ConfigLayer {
        var layer = ConfigLayer()
        guard let members = root.objectMembers else {
            problems.append(
                ConfigError.Problem(
                    keyPath: "", source: source, message: "the file must hold a JSON object, got \(root.shortDescription)"))
            return layer
        }
        layer.walk(members, section: "", source: source, problems: &problems)
        return layer
    }

    private mutating func walk(
        _ members: [String: JSONValue], section: String, source: ConfigError.Source,
        problems: inout [ConfigError.Problem]
    ) {
        let prefix = section.isEmpty ? "" : section + "."
        for name in members.keys.sorted() {
            let value = members[name, default: .null]
            let path = prefix + name
            if let key = ConfigSchema.byPath[path] {
                if value != .null { set(key, .inline(value), source: source, problems: &problems) }
            } else if name.hasSuffix(ConfigSchema.fileSuffix),
                let key = ConfigSchema.byPath[String(path.dropLast(ConfigSchema.fileSuffix.count))], key.isSecret
            {
                switch value {
                case .null: break
                case .string(let file) where !file.isEmpty:
                    set(key, .file(file), source: source, problems: &problems)
                default:
                    problems.append(
                        ConfigError.Problem(
                            keyPath: path, source: source, message: "expected the path of a file, got \(value.shortDescription)"))
                }
            } else if ConfigSchema.sections.contains(path) {
                switch value {
                case .null: break
                case .object: walk(value.objectMembers ?? [:], section: path, source: source, problems: &problems)
                default:
                    let names = ConfigSchema.childNames(of: path).filter { !$0.hasSuffix(ConfigSchema.fileSuffix) }
                    problems.append(
                        ConfigError.Problem(
                            keyPath: path, source: source,
                            message: "expected an object with keys \(names.joined(separator: ", ")); got \(value.shortDescription)"))
                }
            } else if name.hasSuffix(ConfigSchema.fileSuffix),
                let key = ConfigSchema.byPath[String(path.dropLast(ConfigSchema.fileSuffix.count))]
            {
                problems.append(
                    ConfigError.Problem(
                        keyPath: path, source: source,
                        message: "only secrets can be read from a file; set \(key.name) directly"))
            } else {
                let message = KeySuggester.unknownKeyMessage(name, siblings: ConfigSchema.childNames(of: section))
                problems.append(ConfigError.Problem(keyPath: path, source: source, message: message))
            }
        }
    }
}

extension ConfigLayer {
    /// The layer of `TOLLGATE_*` environment variables. Names are matched against the schema's
    /// names (never split on `_`); a variable that matches nothing is a problem (typo protection).
    static func fromEnvironment(_ environment: [String: String], problems: inout [ConfigError.Problem]) -> ConfigLayer {
        var layer = ConfigLayer()
        for name in environment.keys.sorted() where name.hasPrefix("TOLLGATE_") {
            guard !ConfigSchema.nonKeyEnvironmentVariables.contains(name) else { continue }
            let raw = environment[name, default: ""]
            let source = ConfigError.Source.environment(name)
            guard let (key, isFile) = ConfigSchema.byEnvironmentName[name] else {
                problems.append(ConfigError.Problem(keyPath: "", source: source, message: unknownVariableMessage(name)))
                continue
            }
            if isFile {
                if !raw.isEmpty { layer.set(key, .file(raw), source: source, problems: &problems) }
                continue
            }
            switch parseEnvironmentValue(raw, kind: key.kind) {
            case .success(.null): continue
            case .success(let value): layer.set(key, .inline(value), source: source, problems: &problems)
            case .failure(let failure):
                problems.append(ConfigError.Problem(keyPath: key.path, source: source, message: failure.message))
            }
        }
        return layer
    }

    private static func unknownVariableMessage(_ name: String) -> String {
        var message = "matches no configuration key"
        if name.hasSuffix("_FILE"), let (key, _) = ConfigSchema.byEnvironmentName[String(name.dropLast(5))] {
            return message + "; only secrets can be read from a file: set \(key.environmentName) directly"
        }
        for key in ConfigSchema.keys {
            switch key.kind {
            case .planMap, .stringListMap, .integerMap, .eventEndpoints, .linkOutRules, .adminTokens:
                if name.hasPrefix(key.environmentName + "_") {
                    return message + "; \(key.path) is set as a whole: \(key.environmentName)='{\"...\": ...}' (JSON)"
                }
            default: break
            }
        }
        let names = Array(ConfigSchema.byEnvironmentName.keys) + Array(ConfigSchema.nonKeyEnvironmentVariables)
        if let close = KeySuggester.closest(to: name, among: names) {
            message += "; did you mean \(close)?"
        }
        return message
    }

    /// Parses a variable's text by the key's type. An empty value leaves a string key unset.
    static func parseEnvironmentValue(_ raw: String, kind: ConfigValueKind) -> Result<JSONValue, JSONParseFailure> {
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        switch kind {
        case .string:
            return .success(raw.isEmpty ? .null : .string(raw))
        case .choice:
            return .success(trimmed.isEmpty ? .null : .string(trimmed))
        case .integer:
            guard let number = Int(trimmed) else {
                return .failure(JSONParseFailure(message: "expected an integer, got \(JSONValue.quoted(raw))"))
            }
            return .success(.integer(Int64(number)))
        case .boolean:
            switch trimmed.lowercased() {
            case "true", "1", "yes", "on": return .success(.bool(true))
            case "false", "0", "no", "off": return .success(.bool(false))
            default: return .failure(JSONParseFailure(message: "expected true or false, got \(JSONValue.quoted(raw))"))
            }
        case .stringList:
            return parseList(trimmed)
        case .increasingIntegers:
            let list = trimmed.hasPrefix("[") ? trimmed : "[" + trimmed + "]"
            switch JSONValue.parse(Data(list.utf8)) {
            case .success(let value): return .success(value)
            case .failure:
                return .failure(JSONParseFailure(message: "expected a JSON array of integers like [3600, 86400], got \(JSONValue.quoted(raw))"))
            }
        case .planMap, .stringListMap, .integerMap, .eventEndpoints, .linkOutRules, .adminTokens:
            switch JSONValue.parse(Data(trimmed.utf8)) {
            case .success(let value): return .success(value)
            case .failure(let failure):
                let shape = kind == .eventEndpoints || kind == .linkOutRules || kind == .adminTokens ? "a JSON array" : "a JSON object"
                return .failure(JSONParseFailure(message: "expected \(shape): \(failure.message)"))
            }
        }
    }

    /// A JSON array (`["a","b"]`), or items separated by commas or newlines (`a, b`).
    static func parseList(_ text: String) -> Result<JSONValue, JSONParseFailure> {
        if text.hasPrefix("[") {
            switch JSONValue.parse(Data(text.utf8)) {
            case .success(let value): return .success(value)
            case .failure(let failure): return .failure(JSONParseFailure(message: "expected a JSON array: \(failure.message)"))
            }
        }
        let items = text.split(whereSeparator: { $0 == "," || $0 == "\n" || $0 == "\r\n" })
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        return .success(.array(items.map { .string($0) }))
    }
}
