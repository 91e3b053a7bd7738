import Foundation
import Postgres
import Storage

/// Which backend the storage, domain, use-case and HTTP suites run on.
///
/// SQLite by default. With `POSTGRES_TEST_URL` set (scripts/test-postgres sets it, for
/// a server it started), every fixture that asks gets its own schema in that PostgreSQL database,
/// so tests stay independent and run in parallel as they do on SQLite files.
public enum TestDatabaseBackend {
    /// The PostgreSQL URL the suites run against, or nil for SQLite.
    public static var postgresURL: String? {
        guard let url = ProcessInfo.processInfo.environment["POSTGRES_TEST_URL"], !url.isEmpty else { return nil }
        return url
    }

    /// Connections each test's database opens at most: tests run in parallel, and the server's
    /// `max_connections` must hold them all.
    public static let testConnections = 3

    /// True when the suites run on PostgreSQL.
    public static var isPostgres: Bool { postgresURL != nil }

    /// A database URL for one test: a fresh, empty schema of the test database (its name is
    /// random), set as the connections' `search_path`. Nil on SQLite.
    /// - Throws: `PostgresError` when the server cannot be reached.
    public static func freshPostgresURL() throws -> String? {
        guard let base = postgresURL else { return nil }
        let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let connection = try PostgresConnection(configuration: try PostgresConfiguration(url: base))
        defer { connection.close() }
        try connection.execute("CREATE SCHEMA \(schema)")
        let options = "-c search_path=\(schema)".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return base + (base.contains("?") ? "&" : "?") + "options=" + options
    }

    /// A fresh database for one test: a new schema on PostgreSQL, else a SQLite file at
    /// `sqlitePath` (with `readers` reader connections).
    /// - Throws: `StorageError`, `PostgresError`.
    public static func make(sqlitePath: String, readers: Int = 1) throws -> Database {
        if let url = try freshPostgresURL() {
            return try PostgresDatabase(url: url, maxConnections: testConnections)
        }
        return try SQLiteDatabase(path: sqlitePath, readers: readers)
    }

    /// `make`, migrated by `migrator`: on SQLite a copy of a file migrated once per run
    /// (`MigratedSQLiteTemplate`), on PostgreSQL a fresh schema migrated here.
    /// - Throws: `StorageError`, `PostgresError`, a file error when the copy fails.
    public static func makeMigrated(_ migrator: Migrator, sqlitePath: String, readers: Int = 1) throws -> Database {
        if isPostgres {
            let database = try make(sqlitePath: sqlitePath, readers: readers)
            _ = try migrator.migrate(database)
            return database
        }
        try MigratedSQLiteTemplate.copy(migrator, to: sqlitePath)
        let database = try SQLiteDatabase(path: sqlitePath, readers: readers)
        _ = try migrator.migrate(database)
        return database
    }
}

/// The tables a connection sees, for tests that scan every row of every table (no secret at
/// rest, nothing left after a deletion).
public enum TableNames {
    /// Every table of the connection's database (SQLite) or of its current schema (PostgreSQL).
    /// - Throws: `StorageError`.
    public static func all(_ connection: Connection) throws -> [String] {
        let sql =
            switch connection.dialect {
            case .sqlite: "SELECT name FROM sqlite_master WHERE type = 'table'"
            case .postgresql: "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()"
            }
        return try connection.query(sql).map { try $0.string("name") }
    }
}
