import Configuration
import Logging
import Storage

/// Opens the database the configuration names: PostgreSQL when `database.url` is set, else
/// the SQLite file at `database.path`.
public enum DatabaseOpener {
    /// The database, not yet migrated.
    /// - Throws: `StorageError` naming the file or the URL (never its password).
    public static func open(_ settings: TollgateConfig.Database, logger: Logger = .disabled) throws -> Database {
        if let url = settings.url {
            return try PostgresDatabase(url: url, maxConnections: settings.maxConnections, logger: logger)
        }
        return try SQLiteDatabase(path: settings.path, logger: logger)
    }

    /// How messages name the database: its file, or its URL without the password.
    public static func name(_ settings: TollgateConfig.Database, _ database: Database) -> String {
        (database as? PostgresDatabase)?.description ?? settings.path
    }
}
