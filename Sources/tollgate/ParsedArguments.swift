/// The command line, parsed: which command and which configuration file.
struct ParsedArguments: Equatable {
    enum Command: Equatable {
        case serve, migrate, configCheck, help, version
        case backup(destination: String)
    }

    var command: Command = .serve
    var configPath: String?

    /// - Throws: `UsageError` naming the argument that is wrong.
    init(_ arguments: [String]) throws {
        var words: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "-h", "--help", "help":
                command = .help
                return
            case "--version", "-V":
                command = .version
                return
            case "--config", "-c":
                guard index + 1 < arguments.count, !arguments[index + 1].hasPrefix("-") else {
                    throw UsageError(message: "\(argument) needs a file path")
                }
                configPath = arguments[index + 1]
                index += 1
            default:
                if argument.hasPrefix("--config=") {
                    configPath = String(argument.dropFirst("--config=".count))
                } else if argument.hasPrefix("-") {
                    throw UsageError(message: "unknown option '\(argument)'")
                } else {
                    words.append(argument)
                }
            }
            index += 1
        }
        switch words.first {
        case nil, "serve":
            try Self.expectCount(words, 1, "serve")
        case "migrate":
            try Self.expectCount(words, 1, "migrate")
            command = .migrate
        case "config":
            guard words.count == 2, words[1] == "check" else {
                throw UsageError(message: "did you mean 'tollgate config check'?")
            }
            command = .configCheck
        case "backup":
            guard words.count == 2 else { throw UsageError(message: "backup needs exactly one destination FILE") }
            command = .backup(destination: words[1])
        case let other?:
            throw UsageError(message: "unknown command '\(other)'")
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
