/// What a statement returned: its rows (possibly none), its columns and its command tag.
public struct PostgresResult: Sendable {
    /// The result's columns (empty for statements that return no rows).
    public let columns: PostgresColumns
    /// The rows, in the order the server sent them.
    public let rows: [PostgresRow]
    /// The CommandComplete tag ("INSERT 0 1", "UPDATE 3", "SELECT 2"); empty for an empty query.
    public let commandTag: String

    /// The rows a command changed or returned, from the tag's last number ("UPDATE 3" is 3; 0 for
    /// tags without a count, such as "CREATE TABLE").
    public var rowsAffected: Int { Self.rowCount(in: commandTag) }

    /// INSERT, UPDATE, DELETE, SELECT, MERGE, MOVE, FETCH and COPY tags end with a row count.
    static func rowCount(in tag: String) -> Int {
        let words = tag.split(separator: " ")
        guard let verb = words.first, ["INSERT", "UPDATE", "DELETE", "SELECT", "MERGE", "MOVE", "FETCH", "COPY"].contains(verb),
            let last = words.last, words.count >= 2, let count = Int(last)
        else { return 0 }
        return count
    }
}
