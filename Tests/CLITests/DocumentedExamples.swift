import Foundation

/// The examples README.md and docs/*.md show, read the way `DocumentedExamplesTests` checks them
/// (the convention is written in docs/DEVELOPING.md, "Examples in the docs").
///
/// A fenced block's info string is its language and then its tag: `sh run`, `sh status=200,404`,
/// `sh not-run: why`, `json <Schema>` (a component of `Public/openapi.json`) or `json config` (a
/// piece of a configuration file).
struct DocumentedBlock: CustomStringConvertible {
    /// The file, from the checkout's root (`docs/OPERATING.md`).
    let file: String
    /// The line of the opening fence, counting from 1.
    let line: Int
    let language: String
    /// What follows the language in the info string, trimmed.
    let tag: String
    /// The block's lines without the fence's indentation.
    let text: String

    var description: String { "\(file):\(line)" }

    /// What one command of a `status=` block claims: the HTTP status and, written `200:success`,
    /// the `status` member of the JSON answer.
    struct Claim: Equatable {
        let status: Int
        let outcome: String?
    }

    /// The claims of a `status=` tag, in order; nil without one. A status that is not a number
    /// reads as -1.
    var claims: [Claim]? {
        guard tag.hasPrefix("status=") else { return nil }
        return tag.dropFirst("status=".count).split(separator: ",").map { entry in
            let parts = entry.trimmingCharacters(in: .whitespaces).split(separator: ":", maxSplits: 1).map(String.init)
            return Claim(status: Int(parts.first ?? "") ?? -1, outcome: parts.count == 2 ? parts[1] : nil)
        }
    }

    /// Why the block is not run (`not-run: why`); nil when it has no such tag.
    var notRunReason: String? {
        guard tag.hasPrefix("not-run:") else { return nil }
        return tag.dropFirst("not-run:".count).trimmingCharacters(in: .whitespaces)
    }
}

enum DocumentedExamples {
    /// README.md and every docs/*.md, from the checkout's root.
    static func files() throws -> [String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: ChildProcess.packageRoot + "/docs")
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }

    static func text(of file: String) throws -> String {
        try String(contentsOfFile: ChildProcess.packageRoot + "/" + file, encoding: .utf8)
    }

    /// The fenced blocks of `markdown` (fences of three backticks, indented or not).
    static func blocks(in markdown: String, file: String) -> [DocumentedBlock] {
        var blocks: [DocumentedBlock] = []
        var open: (line: Int, indent: Int, info: String)?
        var body: [String] = []
        for (index, line) in markdown.components(separatedBy: "\n").enumerated() {
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix("```") else {
                if let open { body.append(String(line.dropFirst(min(open.indent, line.prefix { $0 == " " }.count)))) }
                continue
            }
            if let started = open {
                let info = started.info
                let language = String(info.prefix { $0 != " " })
                let tag = info.dropFirst(language.count).trimmingCharacters(in: .whitespaces)
                blocks.append(DocumentedBlock(file: file, line: started.line, language: language, tag: tag, text: body.joined(separator: "\n")))
                open = nil
                body = []
            } else {
                open = (index + 1, line.count - trimmed.count, trimmed.dropFirst(3).trimmingCharacters(in: .whitespaces))
            }
        }
        return blocks
    }

    /// `markdown` without its fenced blocks (the prose, with its inline code).
    static func prose(of markdown: String) -> String {
        var inside = false
        return markdown.components(separatedBy: "\n").filter { line in
            if line.drop(while: { $0 == " " }).hasPrefix("```") { inside.toggle(); return false }
            return !inside
        }.joined(separator: "\n")
    }

    /// The commands of a shell block: comment and blank lines dropped, a line ending in `\` or
    /// inside an open quote joined with the next one.
    static func commands(in script: String) -> [String] {
        var commands: [String] = []
        var current = ""
        var quote: Character?
        for line in script.components(separatedBy: "\n") {
            if current.isEmpty, line.trimmingCharacters(in: .whitespaces).isEmpty || line.trimmingCharacters(in: .whitespaces).hasPrefix("#") {
                continue
            }
            current += current.isEmpty ? line : "\n" + line
            for character in line {
                if let open = quote { if character == open { quote = nil } } else if character == "'" || character == "\"" { quote = character }
            }
            if quote == nil, !line.hasSuffix("\\") {
                commands.append(current)
                current = ""
            }
        }
        if !current.isEmpty { commands.append(current) }
        return commands
    }

    /// Inline code spans of prose that run `tollgate` (`tollgate admin codes --email E`,
    /// `swift run tollgate --help`).
    static func inlineInvocations(in prose: String) -> [String] {
        let span = try! NSRegularExpression(pattern: #"`((?:swift run )?tollgate(?: [^`]*)?)`"#)
        return span.matches(in: prose, range: NSRange(prose.startIndex..., in: prose)).map {
            String(prose[Range($0.range(at: 1), in: prose)!])
        }
    }

    /// The arguments a command gives `tollgate` (after `swift run tollgate`, `tollgate` or a path
    /// ending in `/tollgate`, past any `NAME=value` assignments), up to a comment, `&&`, `|`, `;` or
    /// a redirection; nil when the command does not run `tollgate`. `[`, `]` and `\|` of a
    /// synopsis are read as plain words and `|`.
    static func tollgateArguments(_ command: String) -> [String]? {
        let words = shellWords(
            command.replacingOccurrences(of: "\\\n", with: " ").replacingOccurrences(of: "\\|", with: "|")
                .replacingOccurrences(of: "[", with: " ").replacingOccurrences(of: "]", with: " "))
        var rest = words.drop { $0.range(of: #"^[A-Z_][A-Z0-9_]*="#, options: .regularExpression) != nil }
        if rest.starts(with: ["swift", "run", "tollgate"]) {
            rest = rest.dropFirst(3)
        } else if let first = rest.first, first == "tollgate" || first.hasSuffix("/tollgate") {
            rest = rest.dropFirst()
        } else {
            return nil
        }
        return Array(rest.prefix { !["#", "&&", "||", "|", ";", ">", "2>"].contains($0) && !$0.hasPrefix("#") })
    }
}

extension DocumentedExamples {
    /// `command` split at blanks outside quotes; a quoted part stays in its word, quotes kept.
    static func shellWords(_ command: String) -> [String] {
        var words: [String] = [], word = ""
        var quote: Character?
        for character in command {
            if let open = quote {
                word.append(character)
                if character == open { quote = nil }
            } else if character == " " || character == "\n" {
                if !word.isEmpty { words.append(word); word = "" }
            } else {
                if character == "'" || character == "\"" { quote = character }
                word.append(character)
            }
        }
        if !word.isEmpty { words.append(word) }
        return words
    }
}

/// What `tollgate --help` says the command line takes: each command with its subcommands, and
/// every `--flag`.
struct CommandLineHelp {
    private(set) var commands: [String: Set<String>] = [:]
    private(set) var flags: Set<String> = []

    /// Reads the usage text: a command line is two spaces, then the command and its words up to
    /// two spaces; `a | b WORD` and `a|b` list alternatives; words in capitals are arguments.
    init(_ usage: String) {
        for line in usage.components(separatedBy: "\n") where line.hasPrefix("  ") && line.dropFirst(2).first?.isLowercase == true {
            let synopsis = line.dropFirst(2).components(separatedBy: "  ")[0]
            let alternatives = synopsis.components(separatedBy: " | ")
            let firstWords = alternatives[0].split(separator: " ").map(String.init)
            let command = firstWords[0]
            var subcommands = commands[command] ?? []
            for (index, alternative) in alternatives.enumerated() {
                let words = alternative.split(separator: " ").map(String.init).dropFirst(index == 0 ? 1 : 0)
                if let word = words.first, word.first?.isLowercase == true {
                    subcommands.formUnion(word.split(separator: "|").map(String.init))
                }
            }
            commands[command] = subcommands
        }
        let flag = try! NSRegularExpression(pattern: #"--[a-z][a-z-]*"#)
        for match in flag.matches(in: usage, range: NSRange(usage.startIndex..., in: usage)) {
            flags.insert(String(usage[Range(match.range, in: usage)!]))
        }
    }

    /// What is wrong with `arguments` given to `tollgate`: an unknown command or subcommand (`...`
    /// stands for any), an unknown flag. Every flag but `--help` and `--version` takes the next word as its value.
    func problems(_ arguments: [String]) -> [String] {
        var problems: [String] = []
        var positional: [String] = []
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            if word.hasPrefix("--") {
                let name = String(word.prefix { $0 != "=" })
                if !flags.contains(name) { problems.append("unknown flag \(name)") }
                if !word.contains("="), name != "--help", name != "--version" { index += 1 }
            } else if word != "-h" {
                positional.append(word)
            }
            index += 1
        }
        guard let command = positional.first else { return problems }
        guard let subcommands = commands[command] else { return problems + ["unknown command \(command)"] }
        if !subcommands.isEmpty {
            let given = positional.dropFirst().first ?? ""
            if given == "..." { return problems }  // `tollgate admin ...`: any of them
            let named = given.split(separator: "|").map(String.init)
            if named.isEmpty || !named.allSatisfy(subcommands.contains) {
                problems.append("`\(command)` takes one of \(subcommands.sorted().joined(separator: ", ")), not `\(given)`")
            }
        }
        return problems
    }
}
