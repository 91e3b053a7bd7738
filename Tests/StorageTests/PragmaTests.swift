import Storage
import Testing

@Suite("Connection settings")
struct PragmaTests {
    @Test("the writer is in WAL mode with foreign keys on and synchronous=NORMAL (lock waits: HealthTests)")
    func writerPragmas() async throws {
        try await withDatabase { database, _ in
            let (mode, foreignKeys, synchronous) = try await database.write { connection in
                (
                    try connection.queryOne("PRAGMA journal_mode")?.string("journal_mode"),
                    try connection.queryOne("PRAGMA foreign_keys")?.int("foreign_keys"),
                    try connection.queryOne("PRAGMA synchronous")?.int("synchronous")
                )
            }
            #expect(mode == "wal")
            #expect(foreignKeys == 1)
            #expect(synchronous == 1)  // NORMAL
        }
    }

    @Test("readers see WAL mode and have foreign keys on")
    func readerPragmas() async throws {
        try await withDatabase { database, _ in
            let (mode, foreignKeys) = try await database.read { connection in
                (
                    try connection.queryOne("PRAGMA journal_mode")?.string("journal_mode"),
                    try connection.queryOne("PRAGMA foreign_keys")?.int("foreign_keys")
                )
            }
            #expect(mode == "wal")
            #expect(foreignKeys == 1)
        }
    }

    @Test("double-quoted strings are identifiers only, as in PostgreSQL")
    func doubleQuotes() async throws {
        try await withDatabase { database, _ in
            let error = try await #require(throws: StorageError.self) {
                try await database.read { try $0.query("SELECT \"not a column\"") }
            }
            #expect(error.message.contains("no such column"))
        }
    }
}
