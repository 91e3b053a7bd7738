import JSON
/// Several problems at once, so `Result` can carry them.
struct KeyProblems: Error {
    let problems: [KeyProblem]
}

extension KeyProblem: Error {}

extension ConfigKey {
    /// A non-empty string; a secret's content is never put in the message.
    static func decodeString(_ value: JSONValue, path: String, secret: Bool) -> Result<String, KeyProblem> {
        guard case .string(let string) = value else {
            let got = secret ? value.kindDescription : value.shortDescription
            return .failure(KeyProblem(path: path, message: "expected a string, got \(got)"))
        }
        guard !string.isEmpty else {
            return .failure(KeyProblem(path: path, message: "must not be empty (leave the key out to use the default)"))
        }
        return .success(string)
    }

    static func decodeInteger(_ value: JSONValue, path: String, minimum: Int, maximum: Int) -> Result<Int, KeyProblem> {
        guard let number = value.integerValue else {
            return .failure(KeyProblem(path: path, message: "expected an integer, got \(value.shortDescription)"))
        }
        guard number >= minimum, number <= maximum else {
            let rule = maximum == Int.max ? "must be at least \(minimum)" : "must be between \(minimum) and \(maximum)"
            return .failure(KeyProblem(path: path, message: "\(rule); got \(number)"))
        }
        return .success(number)
    }

    static func decodeStrings(_ value: JSONValue, path: String, secret: Bool) -> Result<[String], KeyProblems> {
        guard case .array(let items) = value else {
            let got = secret ? value.kindDescription : value.shortDescription
            return .failure(KeyProblems(problems: [KeyProblem(path: path, message: "expected an array of strings, got \(got)")]))
        }
        var problems: [KeyProblem] = []
        var result: [String] = []
        for (index, item) in items.enumerated() {
            switch decodeString(item, path: "\(path)[\(index)]", secret: secret) {
            case .success(let string): result.append(string)
            case .failure(let problem): problems.append(problem)
            }
        }
        return problems.isEmpty ? .success(result) : .failure(KeyProblems(problems: problems))
    }

    /// One of `allowed`, compared without regard to case; returns the canonical spelling.
    static func decodeChoice(_ value: JSONValue, path: String, allowed: [String]) -> Result<String, KeyProblem> {
        let list = allowed.joined(separator: ", ")
        guard case .string(let string) = value else {
            return .failure(KeyProblem(path: path, message: "must be one of \(list); got \(value.shortDescription)"))
        }
        guard let match = allowed.first(where: { $0.lowercased() == string.lowercased() }) else {
            var message = "must be one of \(list); got \(value.shortDescription)"
            if let close = KeySuggester.closest(to: string, among: allowed) {
                message += "; did you mean \(close)?"
            }
            return .failure(KeyProblem(path: path, message: message))
        }
        return .success(match)
    }

    static func decodePlan(_ value: JSONValue, path: String) -> Result<TollgateConfig.Plan, KeyProblems> {
        guard let members = value.objectMembers else {
            return .failure(
                KeyProblems(problems: [
                    KeyProblem(
                        path: path,
                        message: "expected an object like {\"price_id\": \"price_...\", \"mode\": \"subscription\"}, got \(value.shortDescription)")
                ]))
        }
        var problems: [KeyProblem] = []
        let known = ["price_id", "mode"]
        for key in members.keys.sorted() where !known.contains(key) {
            problems.append(KeyProblem(path: "\(path).\(key)", message: KeySuggester.unknownKeyMessage(key, siblings: known)))
        }
        var priceID = ""
        if let raw = members["price_id"], raw != .null {
            switch decodeString(raw, path: "\(path).price_id", secret: false) {
            case .success(let string): priceID = string
            case .failure(let problem): problems.append(problem)
            }
        } else {
            problems.append(KeyProblem(path: "\(path).price_id", message: "required: the Stripe price id (price_...)"))
        }
        var mode = PlanMode.subscription
        if let raw = members["mode"], raw != .null {
            switch decodeChoice(raw, path: "\(path).mode", allowed: PlanMode.allCases.map(\.rawValue)) {
            case .success(let string): mode = PlanMode(rawValue: string) ?? .subscription
            case .failure(let problem): problems.append(problem)
            }
        }
        return problems.isEmpty ? .success(TollgateConfig.Plan(priceID: priceID, mode: mode)) : .failure(KeyProblems(problems: problems))
    }
}
