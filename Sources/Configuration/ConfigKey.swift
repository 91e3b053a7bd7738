import JSON
/// A problem found while decoding one key, before its source is attached.
struct KeyProblem: Sendable, Equatable {
    let path: String
    let message: String
}

/// The JSON shape a configuration key accepts; decides how an environment variable is parsed.
enum ConfigValueKind: Sendable, Equatable {
    case string
    case integer(minimum: Int, maximum: Int)
    case boolean
    case stringList
    case choice([String])
    /// A dynamic-key object of string arrays (`entitlements`).
    case stringListMap
    /// A dynamic-key object of bounded integers (`products_duration_days`).
    case integerMap(minimum: Int, maximum: Int)
    /// A dynamic-key object of plans (`plans`).
    case planMap
    /// An array of event endpoints (`events.endpoints`).
    case eventEndpoints
    /// An array of link-out rules (`link_out.rules`).
    case linkOutRules
    /// An array of increasing positive integers (`redemption.reminders`).
    case increasingIntegers
    /// An array of named admin tokens (`admin.tokens`).
    case adminTokens

    /// The type as written in the configuration reference.
    var documentation: String {
        switch self {
        case .string: return "string"
        case .integer(let minimum, let maximum):
            return maximum == Int.max ? "integer ≥ \(minimum)" : "integer \(minimum)–\(maximum)"
        case .boolean: return "boolean"
        case .stringList: return "array of strings"
        case .choice(let values): return "one of " + values.joined(separator: ", ")
        case .stringListMap: return "object: name → array of strings"
        case .integerMap(let minimum, let maximum): return "object: name → integer \(minimum)–\(maximum)"
        case .planMap: return "object: name → {price_id, mode}"
        case .eventEndpoints: return "array of {url, secret (one or a list during a roll; or secret_file), types}"
        case .linkOutRules: return "array of {platform, storefronts, program, token_required}"
        case .increasingIntegers: return "array of increasing positive integers"
        case .adminTokens: return "array of {name, sha256}"
        }
    }
}

/// One key of the configuration schema: its path, shape, secrecy, and how it maps onto
/// `TollgateConfig`. Decoding, environment mapping, masking and documentation all use it.
struct ConfigKey: Sendable {
    /// The dotted key path, e.g. `redemption.on_other_user`.
    let path: String
    let kind: ConfigValueKind
    /// Masked in `maskedJSON()`, never echoed in errors, and may be read from a `*_file`.
    let isSecret: Bool
    /// Has no default outside demo mode.
    let isRequired: Bool
    /// Type-checks `value` and stores it into the configuration; returns what was wrong.
    let decode: @Sendable (JSONValue, inout TollgateConfig) -> [KeyProblem]
    /// Reads the key's effective value back out of a configuration.
    let encode: @Sendable (TollgateConfig) -> JSONValue
    /// Masks the secrets nested in a value of a key that is not a secret as a whole
    /// (`events.endpoints[].secret`), for `maskedJSON()`.
    var maskNested: (@Sendable (JSONValue) -> JSONValue)? = nil

    /// `TOLLGATE_` + the path upper-cased with dots as underscores.
    var environmentName: String {
        "TOLLGATE_" + String(path.uppercased().map { $0 == "." ? "_" : $0 })
    }

    /// The last component of the path.
    var name: String {
        String(path.split(separator: ".").last ?? Substring(path))
    }
}

extension ConfigKey {
    typealias Path<Value> = any WritableKeyPath<TollgateConfig, Value> & Sendable

    /// A required-or-defaulted string.
    static func string(_ path: String, _ keyPath: Path<String>, secret: Bool = false, required: Bool = false) -> ConfigKey {
        ConfigKey(
            path: path, kind: .string, isSecret: secret, isRequired: required,
            decode: { value, config in
                switch decodeString(value, path: path, secret: secret) {
                case .success(let string): config[keyPath: keyPath] = string; return []
                case .failure(let problem): return [problem]
                }
            }, encode: { .string($0[keyPath: keyPath]) })
    }

    /// A string that may stay unset.
    static func optionalString(_ path: String, _ keyPath: Path<String?>, secret: Bool = false) -> ConfigKey {
        ConfigKey(
            path: path, kind: .string, isSecret: secret, isRequired: false,
            decode: { value, config in
                switch decodeString(value, path: path, secret: secret) {
                case .success(let string): config[keyPath: keyPath] = string; return []
                case .failure(let problem): return [problem]
                }
            }, encode: { config in config[keyPath: keyPath].map { .string($0) } ?? .null })
    }

    /// An integer within `range`.
    static func integer(_ path: String, _ keyPath: Path<Int>, minimum: Int, maximum: Int = Int.max) -> ConfigKey {
        ConfigKey(
            path: path, kind: .integer(minimum: minimum, maximum: maximum), isSecret: false, isRequired: false,
            decode: { value, config in
                switch decodeInteger(value, path: path, minimum: minimum, maximum: maximum) {
                case .success(let number): config[keyPath: keyPath] = number; return []
                case .failure(let problem): return [problem]
                }
            }, encode: { .integer(Int64($0[keyPath: keyPath])) })
    }

    /// An integer within `range` that may stay unset.
    static func optionalInteger(_ path: String, _ keyPath: Path<Int?>, minimum: Int, maximum: Int = Int.max) -> ConfigKey {
        ConfigKey(
            path: path, kind: .integer(minimum: minimum, maximum: maximum), isSecret: false, isRequired: false,
            decode: { value, config in
                switch decodeInteger(value, path: path, minimum: minimum, maximum: maximum) {
                case .success(let number): config[keyPath: keyPath] = number; return []
                case .failure(let problem): return [problem]
                }
            }, encode: { config in config[keyPath: keyPath].map { .integer(Int64($0)) } ?? .null })
    }

    /// `true` or `false`.
    static func boolean(_ path: String, _ keyPath: Path<Bool>) -> ConfigKey {
        ConfigKey(
            path: path, kind: .boolean, isSecret: false, isRequired: false,
            decode: { value, config in
                guard case .bool(let flag) = value else {
                    return [KeyProblem(path: path, message: "expected true or false, got \(value.shortDescription)")]
                }
                config[keyPath: keyPath] = flag
                return []
            }, encode: { .bool($0[keyPath: keyPath]) })
    }

    /// An array of non-empty strings.
    static func strings(_ path: String, _ keyPath: Path<[String]>, secret: Bool = false) -> ConfigKey {
        ConfigKey(
            path: path, kind: .stringList, isSecret: secret, isRequired: false,
            decode: { value, config in
                switch decodeStrings(value, path: path, secret: secret) {
                case .success(let list): config[keyPath: keyPath] = list; return []
                case .failure(let problems): return problems.problems
                }
            }, encode: { .array($0[keyPath: keyPath].map { .string($0) }) })
    }

    /// One of the raw values of `E` (matched without regard to case).
    static func choice<E: RawRepresentable & CaseIterable & Sendable>(_ path: String, _ keyPath: Path<E>) -> ConfigKey
    where E.RawValue == String {
        let allowed = E.allCases.map(\.rawValue)
        return ConfigKey(
            path: path, kind: .choice(allowed), isSecret: false, isRequired: false,
            decode: { value, config in
                switch decodeChoice(value, path: path, allowed: allowed) {
                case .success(let raw):
                    guard let choice = E(rawValue: raw) else { return [] }
                    config[keyPath: keyPath] = choice
                    return []
                case .failure(let problem): return [problem]
                }
            }, encode: { .string($0[keyPath: keyPath].rawValue) })
    }

    /// A dynamic-key object whose values are arrays of non-empty strings.
    static func stringListMap(_ path: String, _ keyPath: Path<[String: [String]]>) -> ConfigKey {
        ConfigKey(
            path: path, kind: .stringListMap, isSecret: false, isRequired: false,
            decode: { value, config in
                guard let members = value.objectMembers else {
                    return [KeyProblem(path: path, message: "expected an object of arrays of strings, got \(value.shortDescription)")]
                }
                var problems: [KeyProblem] = []
                var result: [String: [String]] = [:]
                for name in members.keys.sorted() {
                    let itemPath = "\(path).\(name)"
                    if name.isEmpty {
                        problems.append(KeyProblem(path: path, message: "names must not be empty"))
                        continue
                    }
                    switch decodeStrings(members[name, default: .null], path: itemPath, secret: false) {
                    case .success(let list): result[name] = list
                    case .failure(let failure): problems += failure.problems
                    }
                }
                if problems.isEmpty { config[keyPath: keyPath] = result }
                return problems
            },
            encode: { config in
                .sortedObject(config[keyPath: keyPath].mapValues { .array($0.map { .string($0) }) })
            })
    }

    /// A dynamic-key object whose values are integers within bounds.
    static func integerMap(_ path: String, _ keyPath: Path<[String: Int]>, minimum: Int, maximum: Int) -> ConfigKey {
        ConfigKey(
            path: path, kind: .integerMap(minimum: minimum, maximum: maximum), isSecret: false, isRequired: false,
            decode: { value, config in
                guard let members = value.objectMembers else {
                    return [KeyProblem(path: path, message: "expected an object of integers, got \(value.shortDescription)")]
                }
                var problems: [KeyProblem] = []
                var result: [String: Int] = [:]
                for name in members.keys.sorted() {
                    guard !name.isEmpty else {
                        problems.append(KeyProblem(path: path, message: "names must not be empty"))
                        continue
                    }
                    guard case .integer(let wide) = members[name, default: .null], let number = Int(exactly: wide),
                        (minimum...maximum).contains(number)
                    else {
                        problems.append(
                            KeyProblem(
                                path: "\(path).\(name)",
                                message: "expected an integer \(minimum)–\(maximum), got \(members[name, default: .null].shortDescription)"))
                        continue
                    }
                    result[name] = number
                }
                if problems.isEmpty { config[keyPath: keyPath] = result }
                return problems
            },
            encode: { config in
                .sortedObject(config[keyPath: keyPath].mapValues { .integer(Int64($0)) })
            })
    }

    /// The `plans` object: name → `{"price_id": "...", "mode": "subscription" | "payment"}`.
    static func planMap(_ path: String, _ keyPath: Path<[String: TollgateConfig.Plan]>) -> ConfigKey {
        ConfigKey(
            path: path, kind: .planMap, isSecret: false, isRequired: false,
            decode: { value, config in
                guard let members = value.objectMembers else {
                    return [KeyProblem(path: path, message: "expected an object of plans, got \(value.shortDescription)")]
                }
                var problems: [KeyProblem] = []
                var result: [String: TollgateConfig.Plan] = [:]
                for name in members.keys.sorted() {
                    if name.isEmpty {
                        problems.append(KeyProblem(path: path, message: "plan names must not be empty"))
                        continue
                    }
                    switch decodePlan(members[name, default: .null], path: "\(path).\(name)") {
                    case .success(let plan): result[name] = plan
                    case .failure(let failure): problems += failure.problems
                    }
                }
                if problems.isEmpty { config[keyPath: keyPath] = result }
                return problems
            },
            encode: { config in
                .sortedObject(
                    config[keyPath: keyPath].mapValues { plan in
                        ["price_id": .string(plan.priceID), "mode": .string(plan.mode.rawValue)]
                    })
            })
    }
}
