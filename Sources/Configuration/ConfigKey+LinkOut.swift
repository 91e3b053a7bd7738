import JSON
extension ConfigKey {
    /// `link_out.rules`: `[{"platform": "ios", "storefronts": ["USA"], "program": "us_link",
    /// "token_required": false}]`. Start-up refuses an unknown programme, one of another
    /// platform, a storefront that is not an ISO 3166-1 alpha-3 code, a storefront listed twice
    /// for one platform, and `token_required: false` for a programme that reports (the report
    /// needs the token).
    static func linkOutRules(_ path: String, _ keyPath: Path<[TollgateConfig.LinkOutRule]>) -> ConfigKey {
        ConfigKey(
            path: path, kind: .linkOutRules, isSecret: false, isRequired: false,
            decode: { value, config in
                guard case .array(let items) = value else {
                    return [KeyProblem(path: path, message: "expected an array like \(example), got \(value.shortDescription)")]
                }
                var problems: [KeyProblem] = []
                var rules: [TollgateConfig.LinkOutRule] = []
                for (index, item) in items.enumerated() {
                    switch decodeLinkOutRule(item, path: "\(path)[\(index)]") {
                    case .success(let rule):
                        for (position, storefront) in rule.storefronts.enumerated()
                        where rules.contains(where: { $0.platform == rule.platform && $0.storefronts.contains(storefront) }) {
                            problems.append(
                                KeyProblem(
                                    path: "\(path)[\(index)].storefronts[\(position)]",
                                    message:
                                        "\(storefront) on \(rule.platform.rawValue) is in an earlier rule too; list each storefront once per platform"
                                ))
                        }
                        rules.append(rule)
                    case .failure(let failure): problems += failure.problems
                    }
                }
                if problems.isEmpty { config[keyPath: keyPath] = rules }
                return problems
            },
            encode: { config in
                .array(
                    config[keyPath: keyPath].map { rule -> JSONValue in
                        [
                            "platform": .string(rule.platform.rawValue), "storefronts": .array(rule.storefronts.map { .string($0) }),
                            "program": .string(rule.program.rawValue), "token_required": .bool(rule.tokenRequired)
                        ]
                    })
            })
    }

    private static let example = #"[{"platform": "ios", "storefronts": ["USA"], "program": "us_link", "token_required": false}]"#

    static func decodeLinkOutRule(_ value: JSONValue, path: String) -> Result<TollgateConfig.LinkOutRule, KeyProblems> {
        guard let members = value.objectMembers else {
            return .failure(
                KeyProblems(problems: [
                    KeyProblem(path: path, message: "expected an object like \(example.dropFirst().dropLast()), got \(value.shortDescription)")
                ]))
        }
        var problems: [KeyProblem] = []
        let known = ["platform", "storefronts", "program", "token_required"]
        for key in members.keys.sorted() where !known.contains(key) {
            problems.append(KeyProblem(path: "\(path).\(key)", message: KeySuggester.unknownKeyMessage(key, siblings: known)))
        }
        let platforms = LinkOutPlatform.allCases.map(\.rawValue)
        var platform: LinkOutPlatform?
        if case .string(let text)? = members["platform"], let known = LinkOutPlatform(rawValue: text) {
            platform = known
        } else {
            problems.append(KeyProblem(path: "\(path).platform", message: "required: one of \(platforms.joined(separator: ", "))"))
        }
        var program: LinkOutProgram?
        let programs = LinkOutProgram.allCases.map(\.rawValue).joined(separator: ", ")
        switch members["program"] {
        case .string(let text)?:
            if let known = LinkOutProgram(rawValue: text) {
                program = known
                if let platform, known.platform != platform {
                    problems.append(
                        KeyProblem(path: "\(path).program", message: "\(text) is a programme of \(known.platform.rawValue), not \(platform.rawValue)")
                    )
                }
            } else {
                problems.append(KeyProblem(path: "\(path).program", message: "unknown programme \(JSONValue.quoted(text)); known: \(programs)"))
            }
        default:
            problems.append(KeyProblem(path: "\(path).program", message: "required: one of \(programs)"))
        }
        var storefronts: [String] = []
        switch decodeStrings(members["storefronts"] ?? .null, path: "\(path).storefronts", secret: false) {
        case .success(let list):
            if list.isEmpty { problems.append(KeyProblem(path: "\(path).storefronts", message: "must name at least one storefront (\"USA\")")) }
            for (index, code) in list.enumerated() where !isStorefrontCode(code) {
                problems.append(
                    KeyProblem(
                        path: "\(path).storefronts[\(index)]",
                        message:
                            "expected an ISO 3166-1 alpha-3 code in capitals, as StoreKit's Storefront.countryCode (\"USA\", \"DEU\"); got \(JSONValue.quoted(code))"
                    ))
            }
            storefronts = list
        case .failure:
            problems.append(KeyProblem(path: "\(path).storefronts", message: "required: an array of ISO 3166-1 alpha-3 codes like [\"USA\"]"))
        }
        var tokenRequired = program?.reports ?? false
        switch members["token_required"] {
        case nil, .null?: break
        case .bool(let flag)?:
            tokenRequired = flag
            if !flag, let program, program.reports {
                problems.append(
                    KeyProblem(
                        path: "\(path).token_required", message: "\(program.rawValue) reports each purchase with the app's token; it cannot be false")
                )
            }
        case let other?:
            problems.append(KeyProblem(path: "\(path).token_required", message: "expected true or false, got \(other.shortDescription)"))
        }
        guard problems.isEmpty, let platform, let program else { return .failure(KeyProblems(problems: problems)) }
        return .success(TollgateConfig.LinkOutRule(platform: platform, storefronts: storefronts, program: program, tokenRequired: tokenRequired))
    }

    /// Three capital ASCII letters (the shape of an ISO 3166-1 alpha-3 code).
    static func isStorefrontCode(_ text: String) -> Bool {
        text.utf8.count == 3 && text.utf8.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
    }
}
