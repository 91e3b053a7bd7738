import JSON

extension ConfigKey {
    /// `admin.tokens`: `[{"name": "ops-cli", "sha256": "<64 hex>"}]`, admin bearer tokens by their
    /// SHA-256 with the name the audit log gives whoever uses them. Names are unique and not empty.
    static func adminTokens(_ path: String, _ keyPath: Path<[TollgateConfig.AdminToken]>) -> ConfigKey {
        ConfigKey(
            path: path, kind: .adminTokens, isSecret: false, isRequired: false,
            decode: { value, config in
                let example = #"[{"name": "ops-cli", "sha256": "<hex SHA-256 of the token>"}]"#
                guard case .array(let items) = value else {
                    return [KeyProblem(path: path, message: "expected an array like \(example), got \(value.shortDescription)")]
                }
                var problems: [KeyProblem] = []
                var tokens: [TollgateConfig.AdminToken] = []
                for (index, item) in items.enumerated() {
                    let at = "\(path)[\(index)]"
                    guard let members = item.objectMembers else {
                        problems.append(
                            KeyProblem(
                                path: at,
                                message: "expected an object like {\"name\": \"ops-cli\", \"sha256\": \"...\"}, got \(item.shortDescription)"))
                        continue
                    }
                    for key in members.keys.sorted() where !["name", "sha256"].contains(key) {
                        problems.append(KeyProblem(path: "\(at).\(key)", message: KeySuggester.unknownKeyMessage(key, siblings: ["name", "sha256"])))
                    }
                    guard case .string(let name)? = members["name"], !name.trimmingCharacters(in: .whitespaces).isEmpty, name.utf8.count <= 100 else {
                        problems.append(KeyProblem(path: "\(at).name", message: "required: the name the audit log shows (1 to 100 characters)"))
                        continue
                    }
                    if tokens.contains(where: { $0.name == name }) {
                        problems.append(KeyProblem(path: "\(at).name", message: "\"\(name)\" is used by an earlier token; give each its own name"))
                    }
                    guard case .string(let hash)? = members["sha256"], hash.utf8.count == 64, hash.utf8.allSatisfy({ ConfigValidator.isHexDigit($0) })
                    else {
                        problems.append(
                            KeyProblem(
                                path: "\(at).sha256",
                                message: "must be 64 hex characters, the SHA-256 of an admin token (printf %s \"$TOKEN\" | sha256sum)"))
                        continue
                    }
                    tokens.append(TollgateConfig.AdminToken(name: name, sha256: hash.lowercased()))
                }
                if problems.isEmpty { config[keyPath: keyPath] = tokens }
                return problems
            },
            encode: { config in
                .array(config[keyPath: keyPath].map { token -> JSONValue in ["name": .string(token.name), "sha256": .string(token.sha256)] })
            })
    }
}
