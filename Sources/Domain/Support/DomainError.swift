/// A failure of the domain that callers turn into a clear answer.
public struct DomainError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, for mapping to HTTP statuses.
    public enum Kind: String, Sendable, Equatable {
        case notFound = "not_found"
        case conflict
        case invalid
        /// Data in the database that should not be possible (a broken invariant).
        case corrupt
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}
