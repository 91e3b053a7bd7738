/// A child process that could not be found, launched or read (not a non-zero exit).
public struct ChildProcessError: Error, CustomStringConvertible {
    /// What went wrong, naming the program.
    public let description: String

    /// An error saying `description`.
    public init(description: String) {
        self.description = description
    }
}
