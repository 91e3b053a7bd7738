import Foundation
import Storage
import Testing

@Suite("Errors")
struct ErrorTests {
    private static let schema = """
        CREATE TABLE accounts (id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE);
        CREATE TABLE purchases (id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts (id), amount BIGINT NOT NULL);
        """

    @Test("a unique violation is flagged and its text holds no bound value")
    func uniqueViolation() async throws {
        try await withDatabase { database, _ in
            try await database.write { try $0.executeScript(Self.schema) }
            let insert = "INSERT INTO accounts (id, email) VALUES (?, ?)"
            try await database.write { try $0.execute(insert, ["acct-1", "very-secret@example.com"]) }
            let before = database.errorCount
            let error = try await #require(throws: StorageError.self) {
                try await database.write { try $0.execute(insert, ["acct-2", "very-secret@example.com"]) }
            }
            #expect(error.isUniqueViolation)
            #expect(error.isConstraintViolation)
            #expect(!error.isForeignKeyViolation)
            #expect(!error.isBusy)
            #expect(error.resultCode == 2067)
            #expect(error.message.contains("UNIQUE constraint failed: accounts.email"))
            #expect(error.sql == insert)
            #expect(!error.description.contains("very-secret"))
            #expect(!error.description.contains("acct-2"))
            #expect(database.errorCount > before)
            let count = try await database.read { try $0.queryOne("SELECT COUNT(*) AS n FROM accounts")?.int("n") }
            #expect(count == 1)
        }
    }

    @Test("a primary-key collision is a unique violation too")
    func primaryKeyViolation() async throws {
        try await withDatabase { database, _ in
            try await database.write { try $0.executeScript(Self.schema) }
            try await database.write { try $0.execute("INSERT INTO accounts (id, email) VALUES (?, ?)", ["same-id", "a@example.com"]) }
            let error = try await #require(throws: StorageError.self) {
                try await database.write { try $0.execute("INSERT INTO accounts (id, email) VALUES (?, ?)", ["same-id", "b@example.com"]) }
            }
            #expect(error.isUniqueViolation)
            #expect(!error.description.contains("same-id"))
        }
    }

    @Test("a foreign-key violation is flagged (foreign keys are enforced)")
    func foreignKeyViolation() async throws {
        try await withDatabase { database, _ in
            try await database.write { try $0.executeScript(Self.schema) }
            let error = try await #require(throws: StorageError.self) {
                try await database.write { connection in
                    try connection.execute(
                        "INSERT INTO purchases (id, account_id, amount) VALUES (?, ?, ?)", ["purchase-1", "missing-account-77", 987_654])
                }
            }
            #expect(error.isConstraintViolation)
            #expect(error.isForeignKeyViolation)
            #expect(!error.isUniqueViolation)
            #expect(error.message.contains("FOREIGN KEY"))
            #expect(!error.description.contains("missing-account-77"))
            #expect(!error.description.contains("987654"))
        }
    }

    @Test("SQL errors name the SQL; wrong argument counts and multi-statement SQL are refused")
    func misuse() async throws {
        try await withDatabase { database, _ in
            let before = database.errorCount
            let syntax = try await #require(throws: StorageError.self) {
                try await database.read { try $0.query("SELEKT 1") }
            }
            #expect(syntax.sql == "SELEKT 1")
            #expect(syntax.description.contains("syntax error"))

            let arguments = try await #require(throws: StorageError.self) {
                try await database.read { try $0.query("SELECT ? + ?", [1]) }
            }
            #expect(arguments.message.contains("2 parameter(s) but 1 argument(s)"))

            let twoStatements = try await #require(throws: StorageError.self) {
                try await database.write { try $0.execute("CREATE TABLE a (id TEXT); CREATE TABLE b (id TEXT)") }
            }
            #expect(twoStatements.message.contains("executeScript"))
            // Nothing of the refused script ran.
            let tables = try await database.read { try $0.query("SELECT name FROM sqlite_master WHERE type = 'table'") }
            #expect(tables.isEmpty)

            let readOnly = try await #require(throws: StorageError.self) {
                try await database.read { try $0.execute("CREATE TABLE c (id TEXT)") }
            }
            #expect(readOnly.isReadOnly)
            #expect(database.errorCount >= before + 4)
        }
    }

    @Test("opening a database whose directory cannot be created fails clearly")
    func uncreatableDirectory() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let blocker = directory.path + "/plain-file"
        #expect(FileManager.default.createFile(atPath: blocker, contents: Data("x".utf8)))
        let path = blocker + "/sub/tollgate.sqlite"
        let error = try #require(throws: StorageError.self) { try SQLiteDatabase(path: path) }
        #expect(error.resultCode == 14)  // SQLITE_CANTOPEN
        #expect(error.description.contains(path))
        #expect(error.description.contains("not a directory") || error.description.contains("Not a directory"))
    }

    @Test("a closed database refuses work; close is idempotent")
    func closed() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase.makeTemporary(directory)
        try await database.write { try $0.execute("CREATE TABLE t (id TEXT PRIMARY KEY)") }
        database.close()
        database.close()
        let error = try await #require(throws: StorageError.self) {
            try await database.read { try $0.query("SELECT * FROM t") }
        }
        #expect(error.message.contains("closed"))
        #expect(throws: StorageError.self) { try database.writeSync { _ in 1 } }
        // The file was closed cleanly and reopens with its table.
        let reopened = try SQLiteDatabase.makeTemporary(directory)
        defer { reopened.close() }
        #expect(try reopened.readSync { try $0.query("SELECT * FROM t") }.isEmpty)
    }
}
