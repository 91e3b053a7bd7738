import Foundation
import Logging
internal import CSQLite

/// Applies an ordered list of migrations, recording each id in `schema_migrations`.
///
/// Each migration runs with its `schema_migrations` row in one write transaction, so a failing
/// migration leaves no trace and the ones before it stay applied. Scripts are written once and
/// run in the database's dialect (`SQLDialect.schemaScript`). On PostgreSQL every migration
/// transaction first takes an advisory lock, so instances starting together apply each
/// migration once: the second waits, then finds it applied. It waits by trying again every 50 ms
/// outside any transaction, never blocked inside one, so it holds no snapshot that an index
/// built or dropped `CONCURRENTLY` (`Migration.index(id:_:)`, `Migration.dropIndex(id:_:)`, run by
/// `MigratorIndexBuild`) would wait for. Foreign keys stay on
/// during migrations; one that rebuilds a referenced table should start with
/// `PRAGMA defer_foreign_keys = ON`.
///
/// With a `release`, the migrator also keeps `schema_releases`: each release that migrated the
/// database, with the oldest release that may serve beside its schema. It refuses a database that
/// a newer release migrated unless that release lets this one run beside it, and then accepts the
/// newer release's migrations it does not know.
public struct Migrator: Sendable {
    /// The migrations, in the order they must be applied.
    public let migrations: [Migration]
    /// The release running the migrator, or nil for a list with no releases (tests, tools).
    public let release: SchemaRelease?

    /// Creates a migrator for `migrations`, in order, run by `release`.
    public init(migrations: [Migration], release: SchemaRelease? = nil) {
        self.migrations = migrations
        self.release = release
    }

    static let createTable =
        "CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)"
    static let createReleasesTable =
        "CREATE TABLE IF NOT EXISTS schema_releases (release TEXT PRIMARY KEY, oldest_beside TEXT NOT NULL, recorded_at BIGINT NOT NULL)"

    /// Applies the pending migrations in order and returns their ids (empty when up to date).
    /// - Throws: `StorageError` when the list has duplicate ids, the database has an applied id
    ///   this code does not know (the database is newer than the code), a known migration is
    ///   pending while a later one is applied, a newer release migrated the database and does not
    ///   let this `release` run beside it, or a migration fails (its error is passed on).
    public func migrate(_ database: Database) throws -> [String] {
        try validateList(database)
        // READ COMMITTED: the check after the lock must see what the lock's last holder committed.
        let (applied, admitted) = try Self.whenLocked(database) { connection in
            try connection.execute(Self.createTable)
            let admitted = try admittedBeside(connection)
            if let release {
                try connection.execute(Self.createReleasesTable)
                try connection.execute(
                    "INSERT INTO schema_releases (release, oldest_beside, recorded_at) VALUES (?, ?, ?) ON CONFLICT (release) DO NOTHING",
                    [release.name, release.oldestBeside, Int64(Date().timeIntervalSince1970 * 1000)])
            }
            return (try Self.appliedIDs(connection), admitted)
        }
        let pending = try pendingIDs(applied: applied, admittedBy: admitted)
        let pendingSet = Set(pending)
        var done: [String] = []
        for migration in migrations where pendingSet.contains(migration.id) {
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let didApply: Bool
            do {
                if let change = migration.indexChange, let postgres = database as? PostgresDatabase {
                    didApply = try MigratorIndexBuild(id: migration.id, change: change).apply(on: postgres)
                } else {
                    didApply = try Self.whenLocked(database) { connection in
                        // Another process may have applied it since the check above.
                        if try connection.queryOne("SELECT id FROM schema_migrations WHERE id = ?", [migration.id]) != nil {
                            return false
                        }
                        try migration.body(connection)
                        try connection.execute("INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)", [migration.id, now])
                        return true
                    }
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
        let (applied, admitted) = try database.readSync { connection -> (Set<String>, String?) in
            guard try Self.hasTable("schema_migrations", connection) else { return ([], nil) }
            return (try Self.appliedIDs(connection), try admittedBeside(connection))
        }
        return try pendingIDs(applied: applied, admittedBy: admitted)
    }

    /// The newest release that migrated the database after this one and lets it run beside its
    /// schema (nil when none is newer, or without a `release`).
    /// - Throws: `StorageError` naming both releases when a newer one does not let this one run beside it.
    private func admittedBeside(_ connection: Connection) throws -> String? {
        guard let release, try Self.hasTable("schema_releases", connection) else { return nil }
        let newer = try connection.query("SELECT release, oldest_beside FROM schema_releases")
            .map { (name: try $0.string("release"), oldest: try $0.string("oldest_beside")) }
            .filter { SchemaRelease.isOlder(release.name, than: $0.name) }
            .sorted { SchemaRelease.isOlder($1.name, than: $0.name) }
        if let refusing = newer.first(where: { SchemaRelease.isOlder(release.name, than: $0.oldest) }) {
            throw StorageError(
                resultCode: SQLITE_ERROR,
                message: "this is release \(release.name), too old for the database: its schema is release \(refusing.name)'s, "
                    + "which runs beside release \(refusing.oldest) or later only; run release \(refusing.oldest) or later")
        }
        return newer.first?.name
    }

    /// The advisory lock class migrations take on PostgreSQL ("tgmi" in ASCII), with the hash of
    /// the schema as the second key, so deployments in separate schemas do not wait on each other.
    static let advisoryLockClass: Int32 = 0x7467_6D69

    /// How long a migrator waits between tries of the lock another instance holds.
    static let lockRetryPause = 0.05

    /// Runs `body` in a `READ COMMITTED` write transaction holding the migrations' lock, which
    /// serializes migrations across instances (PostgreSQL; SQLite's writer lock already does).
    /// While another instance holds it, the transaction ends at once and the next try comes 50 ms
    /// later: a waiting instance holds no snapshot, so an index being built `CONCURRENTLY` never
    /// waits for it (it would wait for one blocked in `pg_advisory_xact_lock` with an older
    /// snapshot, until that waiter's 30 s lock timeout). Logs every 10 s it keeps waiting.
    static func whenLocked<T>(_ database: Database, _ body: (Connection) throws -> T) throws -> T {
        try untilLocked(database.logger) {
            do {
                return try database.writeSync(isolation: .readCommitted) { connection in
                    if connection.dialect == .postgresql {
                        let got = try connection.queryOne(
                            "SELECT pg_try_advisory_xact_lock(CAST(? AS INTEGER), hashtext(current_schema())) AS got", [advisoryLockClass])
                        guard try got?.bool("got") == true else { throw LockHeldElsewhere() }
                    }
                    return try body(connection)
                }
            } catch is LockHeldElsewhere {
                return nil
            }
        }
    }

    /// Runs `attempt` until it returns a value (nil: another session holds the migrations' lock),
    /// 50 ms apart, logging `storage.migration.waiting` every 10 s it keeps waiting.
    static func untilLocked<T>(_ logger: Logger, _ attempt: () throws -> T?) throws -> T {
        let started = Date()
        var nextLog = 10.0
        while true {
            if let result = try attempt() { return result }
            let waited = Date().timeIntervalSince(started)
            if waited >= nextLog {
                logger.info("storage.migration.waiting", [("seconds", .int(Int(waited)))])
                nextLog += 10
            }
            Thread.sleep(forTimeInterval: lockRetryPause)
        }
    }

    /// The migrations' lock is held by another session: try again later.
    struct LockHeldElsewhere: Error {}

    private static func hasTable(_ name: StaticString, _ connection: Connection) throws -> Bool {
        switch connection.dialect {
        case .sqlite:
            return try connection.queryOne("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?", ["\(name)"]) != nil
        case .postgresql:
            // `name` is one of this file's table names; a literal, as `to_regclass` takes cstring before PostgreSQL 14.
            return try connection.queryOne("SELECT to_regclass('\(name)') IS NOT NULL AS present")?.bool("present") ?? false
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

    /// - Parameter admittedBy: a newer release that lets this one run beside it: the migrations
    ///   this list does not know are that release's.
    private func pendingIDs(applied: Set<String>, admittedBy newer: String?) throws -> [String] {
        let known = Set(migrations.map(\.id))
        let unknown = applied.subtracting(known).sorted()
        guard unknown.isEmpty || newer != nil else {
            throw StorageError(
                resultCode: SQLITE_ERROR,
                message: "the database has migration(s) \(unknown.joined(separator: ", ")) that this code does not know: "
                    + "the database is newer than the code" + (release.map { " (release \($0.name))" } ?? ""))
        }
        let pending = migrations.map(\.id).filter { !applied.contains($0) }
        if let firstPending = pending.first,
            let position = migrations.firstIndex(where: { $0.id == firstPending }),
            let later = migrations[position...].first(where: { applied.contains($0.id) })
        {
            throw StorageError(
                resultCode: SQLITE_ERROR,
                message: "migration '\(firstPending)' is pending but the later migration '\(later.id)' is already applied: "
                    + "migrations must be appended to the end of the list")
        }
        return pending
    }

    private func error(_ message: String, _ database: Database) -> StorageError {
        StorageError(resultCode: SQLITE_ERROR, message: message)
    }
}
