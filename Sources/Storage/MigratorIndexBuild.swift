import Foundation

/// Applies one `Migration.index(id:_:)` or `Migration.dropIndex(id:_:)` migration on PostgreSQL:
/// builds or drops the index `CONCURRENTLY`, so the tables' writers (this release's and the release
/// before, serving beside it) never wait on it, then records the migration.
///
/// `CREATE INDEX CONCURRENTLY` and `DROP INDEX CONCURRENTLY` run outside a transaction, so the
/// migrations' advisory lock is taken for the session (tried every 50 ms, never waited on: see
/// `Migrator.whenLocked`) and is cleared before the connection goes back to the pool. A build that
/// was killed leaves an invalid index behind: it is dropped (`CONCURRENTLY` too) and built again.
/// A valid index of that name is taken as built. The id is recorded after the build; a crash
/// between the two builds nothing twice, as the next run finds the index valid. A drop is `IF EXISTS`: a run after a crash
/// between the drop and the record finds nothing to drop and records it.
struct MigratorIndexBuild {
    let id: String
    let change: IndexChange

    /// Builds or drops the index and records `id`; false when another instance had applied it.
    /// - Throws: `StorageError` (a build that fails leaves its invalid index for the next run to drop).
    func apply(on database: PostgresDatabase) throws -> Bool {
        try database.withSessionSync { connection in
            try lock(connection, database)
            defer { _ = try? connection.queryOne("SELECT pg_advisory_unlock_all()") }
            if try connection.queryOne("SELECT id FROM schema_migrations WHERE id = ?", [id]) != nil { return false }
            switch change {
            case .build(let index): try build(index, connection, database)
            case .drop(let name): try connection.executeScript("DROP INDEX CONCURRENTLY IF EXISTS \(name)")
            }
            try connection.execute(
                "INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING",
                [id, Int64(Date().timeIntervalSince1970 * 1000)])
            return true
        }
    }

    /// Builds `index` unless a valid one of its name exists (an invalid one is dropped first).
    private func build(_ index: IndexBuild, _ connection: Connection, _ database: PostgresDatabase) throws {
        switch try validity(of: index.name, connection) {
        case true?:
            database.logger.info("storage.migration.index_exists", [("id", .string(id)), ("index", .string(index.name))])
        case false?:
            database.logger.info("storage.migration.index_invalid", [("id", .string(id)), ("index", .string(index.name))])
            try connection.executeScript("DROP INDEX CONCURRENTLY \(index.name)")
            try connection.executeScript(index.concurrently)
        case nil:
            try connection.executeScript(index.concurrently)
        }
    }

    /// Whether the index exists in the current schema and is valid (nil: it does not exist).
    private func validity(of name: String, _ connection: Connection) throws -> Bool? {
        try connection.queryOne(
            """
            SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relname = ? AND n.nspname = current_schema()
            """, [name]
        ).map { try $0.bool("valid") }
    }

    /// Takes the migrations' advisory lock for the session, trying every 50 ms.
    private func lock(_ connection: Connection, _ database: PostgresDatabase) throws {
        try Migrator.untilLocked(database.logger) {
            try connection.queryOne(
                "SELECT pg_try_advisory_lock(CAST(? AS INTEGER), hashtext(current_schema())) AS got", [Migrator.advisoryLockClass])?
                .bool("got") == true ? () : nil
        }
    }
}
