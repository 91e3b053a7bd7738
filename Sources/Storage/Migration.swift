import Foundation

/// One schema change, identified by a stable id. A shipped migration is never edited: changes
/// go in a new migration appended to the list.
public struct Migration: Sendable {
    /// The id recorded in `schema_migrations` (for example `"2025-01-accounts"`).
    public let id: String
    /// The SQL of a migration made of SQL (nil for one written in Swift), for the checks that read
    /// what a release's migrations do (`MigrationListTests`).
    public let sql: String?
    /// The index an `index(id:_:)` migration builds or a `dropIndex(id:_:)` migration drops, or nil.
    let indexChange: IndexChange?
    /// Whether this is an `index(id:_:)` migration: built without holding up the table's writers.
    public var buildsIndexBesideWriters: Bool {
        if case .build = indexChange { true } else { false }
    }
    /// Whether this is a `dropIndex(id:_:)` migration: dropped without holding up the table's writers.
    public var dropsIndexBesideWriters: Bool {
        if case .drop = indexChange { true } else { false }
    }
    let body: @Sendable (Connection) throws -> Void

    /// A migration made of SQL statements, run with `SQLConnection.executeScript` in the
    /// connection's dialect (`SQLDialect.schemaScript`).
    /// The script must not contain BEGIN/COMMIT: the migrator supplies the transaction.
    public init(id: String, sql: String) {
        self.id = id
        self.sql = sql
        self.indexChange = nil
        self.body = { connection in try connection.executeScript(connection.dialect.schemaScript(sql)) }
    }

    /// A migration written in Swift, for data changes that need code.
    public init(id: String, body: @escaping @Sendable (Connection) throws -> Void) {
        self.id = id
        self.sql = nil
        self.indexChange = nil
        self.body = body
    }

    private init(id: String, indexChange: IndexChange) {
        let statement = indexChange.statement
        self.id = id
        self.sql = statement
        self.indexChange = indexChange
        self.body = { connection in try connection.executeScript(connection.dialect.schemaScript(statement)) }
    }

    /// A migration that builds one index on a table that already holds rows, without stopping its
    /// writers: on PostgreSQL the migrator runs it `CONCURRENTLY`, outside a transaction, so the
    /// instances of the release before keep writing while it builds (docs/OPERATING.md
    /// "Upgrading"); an index a killed build left invalid is dropped and built again. On SQLite
    /// (one instance, one writer) it runs like any migration.
    /// - Parameter statement: one `CREATE [UNIQUE] INDEX name ON table (...)`, without `CONCURRENTLY`.
    /// - Precondition: `statement` has that shape (a programming error otherwise).
    public static func index(id: String, _ statement: String) -> Migration {
        guard let build = IndexBuild(statement) else {
            preconditionFailure("migration \(id): expected one CREATE [UNIQUE] INDEX name ON table (...), got \(statement)")
        }
        return Migration(id: id, indexChange: .build(build))
    }

    /// A migration that drops one index, without stopping the table's writers: on PostgreSQL the
    /// migrator runs `DROP INDEX CONCURRENTLY IF EXISTS` outside a transaction, as it builds an
    /// `index(id:_:)` one. Only for an index the release serving beside can do without: that
    /// release's statements that used it read the table instead (docs/OPERATING.md "Upgrading").
    /// On SQLite it runs like any migration.
    /// - Parameter name: the index's name (letters, digits and `_`).
    /// - Precondition: `name` has that shape (a programming error otherwise).
    public static func dropIndex(id: String, _ name: String) -> Migration {
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
            preconditionFailure("migration \(id): expected an index name, got \(name)")
        }
        return Migration(id: id, indexChange: .drop(name: name))
    }
}

/// What an `index(id:_:)` or `dropIndex(id:_:)` migration does to one index.
enum IndexChange: Sendable, Equatable {
    case build(IndexBuild)
    case drop(name: String)

    /// The statement as any migration runs it (SQLite, in the migration's transaction).
    var statement: String {
        switch self {
        case .build(let build): build.statement
        case .drop(let name): "DROP INDEX IF EXISTS \(name)"
        }
    }
}

/// The index of an `index(id:_:)` migration: its name and the statement that builds it.
struct IndexBuild: Sendable, Equatable {
    /// The index's name (unqualified: it lives in the connection's current schema).
    let name: String
    /// `CREATE [UNIQUE] INDEX name ON ...`, as written.
    let statement: String
    /// Where `CONCURRENTLY` goes: after `INDEX`.
    private let afterIndexKeyword: String.Index

    /// Reads `statement`, or nil when it is not one `CREATE [UNIQUE] INDEX name ON table (...)`.
    init?(_ statement: String) {
        let text = statement.trimmingCharacters(in: .whitespacesAndNewlines)
        var rest = Substring(text)
        func word() -> Substring? {
            rest = rest.drop { $0.isWhitespace }
            let token = rest.prefix { !$0.isWhitespace && $0 != "(" && $0 != ";" }
            guard !token.isEmpty else { return nil }
            rest = rest[token.endIndex...]
            return token
        }
        guard word()?.uppercased() == "CREATE" else { return nil }
        var next = word()
        if next?.uppercased() == "UNIQUE" { next = word() }
        guard next?.uppercased() == "INDEX" else { return nil }
        let keywordEnd = rest.startIndex
        guard let name = word(), name.uppercased() != "CONCURRENTLY", name.uppercased() != "IF",
            name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }), word()?.uppercased() == "ON", word() != nil,
            !text.dropLast(text.hasSuffix(";") ? 1 : 0).contains(";")
        else { return nil }
        self.name = String(name)
        self.statement = text
        self.afterIndexKeyword = keywordEnd
    }

    /// The statement with `CONCURRENTLY` after `INDEX` (PostgreSQL).
    var concurrently: String {
        String(statement[..<afterIndexKeyword]) + " CONCURRENTLY" + String(statement[afterIndexKeyword...])
    }
}
