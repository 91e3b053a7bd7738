/// A template that cannot be loaded or rendered, located as `file:line:column: message`.
///
/// Line and column are 1-based; the column counts characters. Errors that have no position
/// (an unreadable file, an unknown template name at render time) have `line == 0` and
/// describe themselves as `file: message`.
public struct TemplateError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The file (or, for templates given as strings, the template name) the error is in.
    public let file: String
    public let line: Int
    public let column: Int
    public let message: String

    /// An error at `line`:`column` of `file` (0 for both when there is no position).
    public init(file: String, line: Int, column: Int, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String {
        line > 0 ? "\(file):\(line):\(column): \(message)" : "\(file): \(message)"
    }
}
