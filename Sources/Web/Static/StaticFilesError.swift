/// Why the static files could not be loaded at start-up.
public struct StaticFilesError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The file or directory concerned.
    public let path: String
    public let message: String

    /// An error about `path`.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}
