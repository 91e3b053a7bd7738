/// A claim (`SQLConnection.executeDeferredClaim`) changed no row: the key it claims was taken
/// before this transaction came to it. Thrown where that became known (at once on SQLite; on
/// PostgreSQL by the statement that sent the claim, or before the commit), so the body goes no
/// further and the write rolls back. An answer, not a failure of the database: it is not counted
/// among the storage errors.
public struct ClaimRefused: Error, Equatable, Sendable, CustomStringConvertible {
    /// The claim's SQL, as its caller wrote it.
    public let sql: String

    /// A refusal of the claim `sql`.
    public init(sql: String) { self.sql = sql }

    public var description: String { "the claim changed no row: \(sql)" }
}
