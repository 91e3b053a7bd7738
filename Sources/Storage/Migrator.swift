import Foundation
internal import CSQLite

/// Applies an ordered list of migrations, recording each id in `schema_migrations`.
///
/// Each migration runs with its `schema_migrations` row in one write transaction, so a failing
/// migration leaves no trace and the ones before it stay applied. Scripts are written once and
/// run in the database's dialect (`SQLDialect.schemaScript`). On PostgreSQL every migration
/// transaction first takes an advisory lock, so instances starting together apply each
/// migration once: the second waits, then finds it applied. Foreign keys stay on
/// during migrations; one that rebuilds a referenced table should start with
/// `PRAGMA defer_foreign_keys = ON`.
public struct Migrator: Sendable {
    /// The migrations, in the order they must be applied.
    public let migrations: [Migration]

    /// Creates a migrator for `migrations`, in order.
    public init(migrations: [Migration]) {
        self.migrations = migrations
    }

    static let createTable =
        "CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)"

    /// Applies the pending migrations in order and returns their ids (empty when up to date).
    /// - Throws: `StorageError` when the list has duplicate ids, the database has an applied id
    ///   this code does not know (the database is newer than the code), a known migration is
    ///   pending while a later one is applied, or a migration fails (its error is passed on).
    public func migrate(_ database: Database) throws -> [String] {
        try validateList(database)
        // READ COMMITTED: the check after the lock must see what the lock's last holder committed.
        let applied = try database.writeSync(isolation: .readCommitted) { connection in
            try Self.lock(connection)
            try connection.execute(Self.createTable)
            return try Self.appliedIDs(connection)
        }
        let pending = try pendingIDs(applied: applied, database)
        let pendingSet = Set(pending)
        var done: [String] = []
        for migration in migrations where pendingSet.contains(migration.id) {
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let didApply: Bool
            do {
                didApply = try database.writeSync(isolation: .readCommitted) { connection in
                    try Self.lock(connection)
                    // Another process may have applied it since the check above.
                    if try connection.queryOne("SELECT id FROM schema_migrations WHERE id = ?", [migration.id]) != nil {
                        return false
                    }
                    try migration.body(connection)
                    try connection.execute("INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)", [migration.id, now])
                    return true
                }
            } catch {
                database.logger.error("storage.migration.failed", [("id", .string(migration.id)), ("error", .string("\(error)"))])
                if let storageError = error as? StorageError {
                    throw StorageError(
                        resultCode: storageError.resultCode,
                        message: "migration '\(migration.id)' failed and was rolled back: \(storageError.message)",
                        sql: storageError.sql)
                }
                throw error
            }
            if didApply {
                done.append(migration.id)
                database.logger.info("storage.migration.applied", [("id", .string(migration.id))])
            }
        }
        return done
    }

    /// The ids of the migrations `migrate` would apply, in order.
    /// - Throws: `StorageError` in the same cases as `migrate` (except a failing migration).
    public func pending(_ database: Database) throws -> [String] {
        try validateList(database)
        let applied = try database.readSync { connection -> Set<String> in
            guard try Self.hasMigrationTable(connection) else { return [] }
            return try Self.appliedIDs(connection)
        }
        return try pendingIDs(applied: applied, database)
    }

    /// The advisory lock class migrations take on PostgreSQL ("tgmi" in ASCII), with the hash of
    /// the schema as the second key, so deployments in separate schemas do not wait on each other.
    static let advisoryLockClass: Int32 = 0x7467_6D69

    /// Serializes migrations across instances (PostgreSQL); SQLite's writer lock already does.
    private static func lock(_ connection: Connection) throws {
        guard connection.dialect == .postgresql else { return }
        try connection.execute("SELECT pg_advisory_xact_lock(CAST(? AS INTEGER), hashtext(current_schema()))", [advisoryLockClass])
    }

    private static func hasMigrationTable(_ connection: Connection) throws -> Bool {
        switch connection.dialect {
        case .sqlite:
            return try connection.queryOne(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'") != nil
        case .postgresql:
            return try connection.queryOne("SELECT to_regclass('schema_migrations') IS NOT NULL AS present")?.bool("present") ?? false
        }
    }

    private static func appliedIDs(_ connection: Connection) throws -> Set<String> {
        Set(try connection.query("SELECT id FROM schema_migrations").map { try $0.string("id") })
    }

    private func validateList(_ database: Database) throws {
        var seen = Set<String>()
        for migration in migrations {
            guard !migration.id.isEmpty else { throw error("a migration has an empty id", database) }
            guard seen.insert(migration.id).inserted else {
                throw error("migration id '\(migration.id)' appears more than once in the list", database)
            }
        }
    }

    private func pendingIDs(applied: Set<String>, _ database: Database) throws -> [String] {
        let known = Set(migrations.map(\.id))
        let unknown = applied.subtracting(known).sorted()
        guard unknown.isEmpty else {
            throw error(
                "the database has migration(s) \(unknown.joined(separator: ", ")) that this code does not know: "
                    + "the database is newer than the code", database)
        }
        let pending = migrations.map(\.id).filter { !applied.contains($0) }
        if let firstPending = pending.first,
            let position = migrations.firstIndex(where: { $0.id == firstPending }),
            let later = migrations[position...].first(where: { applied.contains($0.id) })
        {
            throw error(
                "migration '\(firstPending)' is pending but the later migration '\(later.id)' is already applied: "
                    + "migrations must be appended to the end of the list", database)
        }
        return pending
    }

    private func error(_ message: String, _ database: Database) -> StorageError {
        StorageError(resultCode: SQLITE_ERROR, message: message)
    }
}
