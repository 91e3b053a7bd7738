/// One schema change, identified by a stable id. A shipped migration is never edited: changes
/// go in a new migration appended to the list.
public struct Migration: Sendable {
    /// The id recorded in `schema_migrations` (for example `"2025-01-accounts"`).
    public let id: String
    let body: @Sendable (Connection) throws -> Void

    /// A migration made of SQL statements, run with `SQLConnection.executeScript` in the
    /// connection's dialect (`SQLDialect.schemaScript`).
    /// The script must not contain BEGIN/COMMIT: the migrator supplies the transaction.
    public init(id: String, sql: String) {
        self.id = id
        self.body = { connection in try connection.executeScript(connection.dialect.schemaScript(sql)) }
    }

    /// A migration written in Swift, for data changes that need code.
    public init(id: String, body: @escaping @Sendable (Connection) throws -> Void) {
        self.id = id
        self.body = body
    }
}
