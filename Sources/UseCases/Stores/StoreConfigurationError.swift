/// A store setting that stops start-up: the message names the configuration key and what is
/// wrong with it (never a secret or a key file's contents).
public struct StoreConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The configuration key at fault (`apple.api.private_key_path`).
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
