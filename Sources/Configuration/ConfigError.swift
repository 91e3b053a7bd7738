/// Everything wrong with a configuration, found in one pass so an operator can fix it all at once.
/// Messages never contain the value of a secret.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where a value came from.
    public enum Source: Sendable, Equatable, CustomStringConvertible {
        /// The JSON configuration file at this path.
        case configFile(String)
        /// This environment variable.
        case environment(String)
        /// A secret read from this file (a `*_file` key, a `*_FILE` variable, or the demo secret).
        case secretFile(String)
        /// Nothing was set: the default applies.
        case defaults

        /// Where the value came from, in words.
        public var description: String {
            switch self {
            case .configFile(let path): return "config file \(path)"
            case .environment(let name): return "environment variable \(name)"
            case .secretFile(let path): return "secret file \(path)"
            case .defaults: return "defaults"
            }
        }
    }

    /// One problem: the key it concerns, where the value came from, and what is wrong.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        /// The key path, e.g. `redemption.on_other_user`; empty for a problem with a whole file.
        public let keyPath: String
        /// Where the offending value (or the missing one) was looked for.
        public let source: Source
        /// What is wrong, e.g. `must be one of switch, transfer, reject; got "swap"`.
        public let message: String

        /// A problem with `keyPath` from `source`.
        public init(keyPath: String, source: Source, message: String) {
            self.keyPath = keyPath
            self.source = source
            self.message = message
        }

        /// `key.path: message (source)`, or `source: message` for a problem with a whole file or
        /// an unknown variable.
        public var description: String {
            keyPath.isEmpty ? "\(source): \(message)" : "\(keyPath): \(message) (\(source))"
        }
    }

    /// Every problem found, in the order found.
    public let problems: [Problem]

    /// An error carrying `problems`.
    public init(problems: [Problem]) {
        self.problems = problems
    }

    /// A multi-line report: a heading, then one problem per line.
    public var description: String {
        let count = problems.count
        let heading = count == 1 ? "Invalid configuration (1 problem):" : "Invalid configuration (\(count) problems):"
        return ([heading] + problems.map { "  - \($0)" }).joined(separator: "\n")
    }
}
