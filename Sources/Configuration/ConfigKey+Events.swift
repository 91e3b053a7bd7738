import Foundation
import JSON

extension ConfigKey {
    /// `events.endpoints`: `[{"url": "https://...", "secret": "whsec_..." | ["whsec_new", "whsec_old"] | "secret_file": "/run/secrets/...",
    /// "types": ["*"]}]`. The key is not a secret as a whole (the URLs are shown by `config check`);
    /// each `secret` is masked, never echoed in a message, and may be read from `secret_file`.
    static func eventEndpoints(_ path: String, _ keyPath: Path<[TollgateConfig.EventEndpoint]>) -> ConfigKey {
        ConfigKey(
            path: path, kind: .eventEndpoints, isSecret: false, isRequired: false,
            decode: { value, config in
                guard case .array(let items) = value else {
                    return [
                        KeyProblem(
                            path: path,
                            message: "expected an array like [{\"url\": \"https://...\", \"secret\": \"whsec_...\"}], got \(value.shortDescription)")
                    ]
                }
                var problems: [KeyProblem] = []
                var endpoints: [TollgateConfig.EventEndpoint] = []
                for (index, item) in items.enumerated() {
                    switch decodeEventEndpoint(item, path: "\(path)[\(index)]") {
                    case .success(let endpoint):
                        if endpoints.contains(where: { $0.url == endpoint.url }) {
                            problems.append(KeyProblem(path: "\(path)[\(index)].url", message: "appears twice; list each URL once"))
                        }
                        endpoints.append(endpoint)
                    case .failure(let failure): problems += failure.problems
                    }
                }
                if problems.isEmpty { config[keyPath: keyPath] = endpoints }
                return problems
            },
            encode: { config in
                .array(
                    config[keyPath: keyPath].map { endpoint -> JSONValue in
                        let secret: JSONValue = endpoint.secrets.count == 1 ? .string(endpoint.secret) : .array(endpoint.secrets.map { .string($0) })
                        return ["url": .string(endpoint.url), "secret": secret, "types": .array(endpoint.types.map { .string($0) })]
                    })
            },
            maskNested: { value in
                guard case .array(let items) = value else { return value }
                return .array(
                    items.map { item in
                        guard case .object(let members) = item else { return item }
                        return .object(
                            members.map { member in
                                guard member.key == "secret" else { return member }
                                if case .array(let secrets) = member.value {
                                    return (key: member.key, value: .array(secrets.map(TollgateConfig.masked)))
                                }
                                return (key: member.key, value: TollgateConfig.masked(member.value))
                            })
                    })
            })
    }

    /// The shortest and longest key Standard Webhooks allows (bytes after base64 decoding).
    static let eventSecretBytes = 24...64

    static func decodeEventEndpoint(_ value: JSONValue, path: String) -> Result<TollgateConfig.EventEndpoint, KeyProblems> {
        guard let members = value.objectMembers else {
            return .failure(
                KeyProblems(problems: [
                    KeyProblem(
                        path: path,
                        message: "expected an object like {\"url\": \"https://...\", \"secret\": \"whsec_...\"}, got \(value.shortDescription)")
                ]))
        }
        var problems: [KeyProblem] = []
        let known = ["url", "secret", "secret_file", "types"]
        for key in members.keys.sorted() where !known.contains(key) {
            problems.append(KeyProblem(path: "\(path).\(key)", message: KeySuggester.unknownKeyMessage(key, siblings: known)))
        }
        var url = ""
        switch decodeString(members["url"] ?? .null, path: "\(path).url", secret: false) {
        case .success(let text):
            if let message = URLCheck.problem(text, rule: .page) {
                problems.append(KeyProblem(path: "\(path).url", message: message))
            }
            url = text
        case .failure:
            problems.append(KeyProblem(path: "\(path).url", message: "required: the URL events are POSTed to"))
        }
        var secrets: [String] = []
        let inline = members["secret"].flatMap { $0 == .null ? nil : $0 }
        let file = members["secret_file"].flatMap { $0 == .null ? nil : $0 }
        switch (inline, file) {
        case (nil, nil):
            problems.append(KeyProblem(path: "\(path).secret", message: "required: whsec_ followed by base64 of a random key (or secret_file)"))
        case (.some, .some):
            problems.append(KeyProblem(path: "\(path).secret", message: "both secret and secret_file are set; use only one"))
        case (.array(let items)?, nil):
            // A roll: every secret signs each delivery.
            if items.isEmpty { problems.append(KeyProblem(path: "\(path).secret", message: "must list at least one whsec_ secret")) }
            for (index, item) in items.enumerated() {
                let itemPath = "\(path).secret[\(index)]"
                switch decodeString(item, path: itemPath, secret: true) {
                case .success(let text):
                    if let message = secretProblem(text) {
                        problems.append(KeyProblem(path: itemPath, message: message))
                    } else if secrets.contains(text) {
                        problems.append(KeyProblem(path: itemPath, message: "repeats an earlier secret of the list"))
                    }
                    secrets.append(text)
                case .failure(let problem): problems.append(problem)
                }
            }
        case (let inline?, nil):
            switch decodeString(inline, path: "\(path).secret", secret: true) {
            case .success(let text):
                if let message = secretProblem(text) { problems.append(KeyProblem(path: "\(path).secret", message: message)) }
                secrets = [text]
            case .failure(let problem): problems.append(problem)
            }
        case (nil, let file?):
            guard case .string(let filePath) = file, !filePath.isEmpty else {
                problems.append(KeyProblem(path: "\(path).secret_file", message: "expected the path of a file, got \(file.shortDescription)"))
                break
            }
            let key = ConfigKey(
                path: "\(path).secret", kind: .string, isSecret: true, isRequired: false, decode: { _, _ in [] }, encode: { _ in .null })
            switch SecretFileReader.read(filePath, for: key) {
            case .success(.string(let text)):
                if let message = secretProblem(text) { problems.append(KeyProblem(path: "\(path).secret", message: message)) }
                secrets = [text]
            case .success: break
            case .failure(let problem): problems.append(problem)
            }
        }
        var types = ["*"]
        if let raw = members["types"], raw != .null {
            switch decodeStrings(raw, path: "\(path).types", secret: false) {
            case .success(let list):
                for (index, type) in list.enumerated() where !isEventTypePattern(type) {
                    problems.append(
                        KeyProblem(
                            path: "\(path).types[\(index)]",
                            message: "expected \"*\", a family like \"purchase.*\" or a type like \"code.redeemed\"; got \(JSONValue.quoted(type))"))
                }
                if list.isEmpty { problems.append(KeyProblem(path: "\(path).types", message: "must name at least one type (\"*\" for all)")) }
                types = list
            case .failure(let failure): problems += failure.problems
            }
        }
        return problems.isEmpty
            ? .success(TollgateConfig.EventEndpoint(url: url, secrets: secrets, types: types)) : .failure(KeyProblems(problems: problems))
    }

    /// What is wrong with a `whsec_` secret (never quoting it), or nil.
    static func secretProblem(_ secret: String) -> String? {
        guard secret.hasPrefix("whsec_") else { return "must start with whsec_ (Standard Webhooks secret format)" }
        guard let key = Data(base64Encoded: String(secret.dropFirst(6))) else { return "the part after whsec_ is not base64" }
        guard eventSecretBytes.contains(key.count) else {
            return "the key after whsec_ is \(key.count) bytes; use \(eventSecretBytes.lowerBound) to \(eventSecretBytes.upperBound) random bytes"
        }
        return nil
    }

    /// `*`, `family.*` or `family.name`, lower-case letters and underscores.
    static func isEventTypePattern(_ text: String) -> Bool {
        if text == "*" { return true }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        let isName = { (part: Substring) in !part.isEmpty && part.allSatisfy { ("a"..."z").contains($0) || $0 == "_" } }
        return isName(parts[0]) && (parts[1] == "*" || isName(parts[1]))
    }
}
