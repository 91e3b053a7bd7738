/// The command line, parsed: which command, which configuration file, and admin options.
struct ParsedArguments: Equatable {
    enum Command: Equatable {
        case serve, migrate, configCheck, help, version
        /// `check`: verify the database (integrity, schema, keys).
        case check
        case backup(destination: String)
        /// `admin <action> [argument]`, e.g. `admin outbox`, `admin revoke CODE_ID`.
        case admin(action: String, argument: String?)
        /// `demo renew|cancel|refund --email E`: moves a simulated purchase on.
        case demo(action: String)
        /// `events test`: send a signed test event to each endpoint.
        case eventsTest
        /// `reconcile [--since 72h]`: one reconcile run of every configured provider.
        case reconcile
        /// `operator add EMAIL --role R | list | role EMAIL ROLE | reset EMAIL | remove EMAIL`.
        case `operator`(action: String, arguments: [String])
        /// `keys rotate|status`: move rows to the current `secret_keys` entry, or count rows per key.
        case keys(action: String)
    }

    /// Options that take a value, and the commands that accept them.
    static let valueOptions: [String: String] = [
        "--config": "any", "-c": "any", "--status": "admin", "--email": "admin, demo", "--purchase-id": "admin", "--limit": "admin",
        "--month": "admin", "--since": "reconcile, admin", "--account": "admin", "--reason": "admin", "--role": "operator",
        "--batch-size": "keys rotate"
    ]
    static let adminActions = [
        "outbox", "resend", "revoke", "codes", "purchases", "accounts", "events", "reports", "delete-account", "forget-secrets", "funnel"
    ]
    static let demoActions = ["renew", "cancel", "refund"]
    /// `operator` actions and how many words each takes after the action.
    static let operatorActions: [String: Int] = ["add": 1, "list": 0, "role": 2, "reset": 1, "remove": 1]

    var command: Command = .serve
    var configPath: String?
    /// Admin options by name without dashes (`status`, `email`, `purchase-id`, `limit`).
    var options: [String: String] = [:]

    /// - Throws: `UsageError` naming the argument that is wrong.
    init(_ arguments: [String]) throws {
        var words: [String] = []
        var index = 0
        while index < arguments.count {
            var argument = arguments[index]
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                inlineValue = String(argument[argument.index(after: equals)...])
                argument = String(argument[..<equals])
            }
            switch argument {
            case "-h", "--help", "help":
                command = .help
                return
            case "--version", "-V":
                command = .version
                return
            case _ where Self.valueOptions[argument] != nil:
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index + 1 < arguments.count, !arguments[index + 1].hasPrefix("-") else {
                        throw UsageError(message: "\(argument) needs a value")
                    }
                    value = arguments[index + 1]
                    index += 1
                }
                if argument == "--config" || argument == "-c" {
                    configPath = value
                } else {
                    options[String(argument.drop { $0 == "-" })] = value
                }
            default:
                if argument.hasPrefix("-") { throw UsageError(message: "unknown option '\(argument)'") }
                words.append(argument)
            }
            index += 1
        }
        switch words.first {
        case nil, "serve":
            try Self.expectCount(words, 1, "serve")
        case "migrate":
            try Self.expectCount(words, 1, "migrate")
            command = .migrate
        case "check":
            try Self.expectCount(words, 1, "check")
            command = .check
        case "config":
            guard words.count == 2, words[1] == "check" else {
                throw UsageError(message: "did you mean 'tollgate config check'?")
            }
            command = .configCheck
        case "events":
            guard words.count == 2, words[1] == "test" else {
                throw UsageError(message: "did you mean 'tollgate events test'?")
            }
            command = .eventsTest
        case "reconcile":
            try Self.expectCount(words, 1, "reconcile")
            guard options.keys.allSatisfy({ $0 == "since" }) else {
                throw UsageError(message: "'reconcile' takes only --since DURATION (e.g. 72h)")
            }
            command = .reconcile
        case "keys":
            guard words.count == 2, words[1] == "rotate" || words[1] == "status" else {
                throw UsageError(message: "keys needs one of: rotate, status")
            }
            guard options.keys.allSatisfy({ $0 == "batch-size" && words[1] == "rotate" }) else {
                throw UsageError(message: "'keys rotate' takes only --batch-size N (rows per transaction); 'keys status' takes no option")
            }
            command = .keys(action: words[1])
        case "backup":
            guard words.count == 2 else { throw UsageError(message: "backup needs exactly one destination FILE") }
            command = .backup(destination: words[1])
        case "admin":
            guard words.count >= 2, Self.adminActions.contains(words[1]) else {
                throw UsageError(message: "admin needs one of: \(Self.adminActions.joined(separator: ", "))")
            }
            try Self.expectCount(words, 3, "admin \(words[1])")
            command = .admin(action: words[1], argument: words.count == 3 ? words[2] : nil)
        case "demo":
            guard words.count == 2, Self.demoActions.contains(words[1]) else {
                throw UsageError(message: "demo needs one of: \(Self.demoActions.joined(separator: ", ")) (and --email E)")
            }
            guard options["email"] != nil, options.count == 1 else {
                throw UsageError(message: "'demo \(words[1])' needs --email E (the email the demo purchase was paid with) and nothing else")
            }
            command = .demo(action: words[1])
        case "operator":
            guard words.count >= 2, let count = Self.operatorActions[words[1]] else {
                throw UsageError(
                    message: "operator needs one of: add EMAIL --role viewer|support|admin, list, role EMAIL ROLE, reset EMAIL, remove EMAIL")
            }
            guard words.count == 2 + count else { throw UsageError(message: "'operator \(words[1])' takes \(count) argument(s)") }
            guard options.keys.allSatisfy({ $0 == "role" }), (options["role"] != nil) == (words[1] == "add") else {
                throw UsageError(message: "'operator add EMAIL' needs --role viewer|support|admin; the other operator actions take no option")
            }
            command = .operator(action: words[1], arguments: Array(words.dropFirst(2)))
        case let other?:
            throw UsageError(message: "unknown command '\(other)'")
        }
        if !options.isEmpty, case .admin = command {
        } else if case .demo = command {
        } else if case .reconcile = command {
        } else if case .operator = command {
        } else if case .keys = command {
        } else if let name = options.keys.sorted().first {
            throw UsageError(message: "--\(name) is only for 'tollgate admin'")
        }
    }

    private static func expectCount(_ words: [String], _ count: Int, _ name: String) throws {
        if words.count > count {
            throw UsageError(message: "'\(name)' takes no argument '\(words[count])'")
        }
    }
}

/// A command line that cannot be run; the message says what is wrong.
struct UsageError: Error {
    let message: String
}
