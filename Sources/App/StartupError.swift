/// A setting that stops start-up (App's one error type): the message names the configuration key
/// and what is wrong with it, never a secret or a key file's contents. Thrown for an unreadable
/// store key or certificate, a store setting missing its companion, a URL that is not http(s), and
/// a `templates/` or `Public/` directory found nowhere.
public struct StartupError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The configuration key at fault (`apple.api.private_key_path`, `paths.templates_dir`).
    public let key: String
    /// What is wrong, in a sentence an operator can act on.
    public let message: String

    /// An error about `key`.
    public init(key: String, _ message: String) {
        self.key = key
        self.message = message
    }

    /// `key: message`.
    public var description: String { "\(key): \(message)" }
}
