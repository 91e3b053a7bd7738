/// What `tollgate check` asks of the storage itself: SQLite's `PRAGMA integrity_check` and
/// `PRAGMA foreign_key_check`. PostgreSQL checks its own pages (and `pg_dump` / `pg_restore`
/// refuse a damaged one), so there it reports nothing.
public enum DatabaseIntegrity {
    /// The most problems reported (SQLite stops listing at this many too).
    static let limit = 20

    /// Each problem found, in SQLite's words; empty when the database is sound.
    /// - Throws: `StorageError` when the checks cannot run.
    public static func problems(_ database: Database) throws -> [String] {
        try database.readSync { connection in
            guard connection.dialect == .sqlite else { return [] }
            var problems = try connection.query("PRAGMA integrity_check(\(limit))").compactMap { row -> String? in
                guard case .text(let text) = row[0], text != "ok" else { return nil }
                return text
            }
            for row in try connection.query("PRAGMA foreign_key_check").prefix(limit) {
                guard case .text(let table) = row[0], case .text(let parent) = row[2] else { continue }
                problems.append("foreign key: a row of \(table) names a missing row of \(parent)")
            }
            return problems
        }
    }
}
