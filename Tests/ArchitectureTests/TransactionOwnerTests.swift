import Foundation
import Testing

/// Domain is the model, its pure rules, its repositories and its migrations: it does its I/O
/// through a `Connection` it is handed, inside a transaction a use case opened. So no Domain
/// source names a database (the value transactions are opened on), opens a transaction or
/// writes transaction SQL; the use cases in `Sources/UseCases` are the one owner of each
/// operation and its transactions.
@Suite("Who opens transactions")
struct TransactionOwnerTests {
    /// What opening a transaction looks like in code: a database value (`Database`, or one of
    /// Storage's `SQLDatabase` types), its read and write entry points, a connection's own
    /// `transaction`, and transaction statements in SQL text.
    static let opening = try! NSRegularExpression(
        pattern:
            #"\b(Database|SQLDatabase|SQLiteDatabase|PostgresDatabase|readSync|writeSync)\b|\.(read|write)\s*(\(isolation|\(\s*\{|\{)|\.transaction\s*[({]|"\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT)\b"#
    )

    /// The `file:line: code` of each line of `source` (comments left out) that opens a transaction.
    static func openings(in source: String, file: String) -> [String] {
        SourceScan.lines(in: source, file: file) { code in opening.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil }
    }

    @Test("No Domain source opens a transaction or holds a database: use cases do, and hand Domain a connection")
    func domainOpensNoTransaction() throws {
        let root = ModuleGraphTests.root + "/Sources/Domain"
        let files = SourceScan.swiftFiles(under: root)
        #expect(files.count > 80, "only \(files.count) Domain sources found under \(root)")
        var found: [String] = []
        for file in files {
            found += Self.openings(in: try String(contentsOfFile: root + "/" + file, encoding: .utf8), file: "Domain/" + file)
        }
        #expect(found.isEmpty, "Domain opens transactions (move the operation into its use case):\n\(found.joined(separator: "\n"))")
    }

    @Test("The scan finds each way of opening a transaction, and not a connection's statements or comments")
    func scanFindsOpenings() {
        let opens = [
            "let database: Database", "try database.readSync { c in }", "try await database.write { c in }",
            "try await db.write(isolation: .readCommitted) { c in }", "try await database.read { try X.find(on: $0) }",
            "try connection.transaction(.immediate) { c in }", #"try connection.execute("BEGIN IMMEDIATE")"#
        ]
        for line in opens { #expect(Self.openings(in: line, file: "f").count == 1, "\(line)") }
        let quiet = [
            "try connection.queryOne(\"SELECT 1\", [])", "// runs in the caller's database.write",
            "let facts = try Facts.read(accountID: id, on: connection)",
            "/// Call inside the write transaction of the change it reports."
        ]
        for line in quiet { #expect(Self.openings(in: line, file: "f").isEmpty, "\(line)") }
    }
}
