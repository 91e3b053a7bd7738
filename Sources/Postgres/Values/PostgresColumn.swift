/// A result column from a RowDescription: its name and type.
public struct PostgresColumn: Sendable, Equatable {
    /// The column's name (or alias).
    public let name: String
    /// The type OID (`pg_type.oid`): 23 is `int4`, 25 `text`...
    public let typeOID: UInt32
}
