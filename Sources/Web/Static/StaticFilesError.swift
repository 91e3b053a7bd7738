/// Why the static files could not be loaded at start-up. Internal: nobody switches on it, start-up
/// prints its description (the path and what is wrong) and stops, so Web's one public error type
/// stays `APIError`.
struct StaticFilesError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The file or directory concerned.
    let path: String
    let message: String

    /// An error about `path`.
    init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    var description: String { "\(path): \(message)" }
}
