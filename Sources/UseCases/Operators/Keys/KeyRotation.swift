import Domain
import Foundation
import Storage

/// `tollgate keys rotate`: seals every row under an older key (or from before key ids) again
/// under the current one, and moves the keyed lookup hashes of that time to SHA-256. Runs while
/// the service serves: a page of rows per transaction (a `kill -9` loses at most the page in
/// flight, which rolls back whole), each row written only if its sealed value is still the one
/// read. Resumable by running again: rows already under the current key are read and skipped.
public struct KeyRotation: Sendable {
    /// Progress of one column, reported after each page.
    public struct Progress: Sendable, Equatable {
        /// `table.column`.
        public let column: String
        /// Rows read so far, of `total`.
        public let done: Int
        public let total: Int
        /// Rows sealed again so far.
        public let resealed: Int

        /// The progress line.
        public var line: String { "\(column): \(done)/\(total) row(s) checked, \(resealed) re-sealed" }
    }

    let database: Database
    let secrets: DomainSecrets
    let batchSize: Int

    /// - Parameter batchSize: rows per transaction.
    public init(database: Database, secrets: DomainSecrets, batchSize: Int = 200) {
        self.database = database
        self.secrets = secrets
        self.batchSize = max(1, batchSize)
    }

    /// Moves every row; calls `progress` after each page. Returns the rows sealed again.
    /// - Throws: `StorageError`; `CryptoError` for a row no listed key opens (nothing of its page is written).
    @discardableResult
    public func run(progress: (Progress) -> Void = { _ in }) throws -> Int {
        var resealed = 0
        for column in SealedColumn.all { resealed += try run(column, progress: progress) }
        return resealed
    }

    private func run(_ column: SealedColumn, progress: (Progress) -> Void) throws -> Int {
        let name = "\(column.table).\(column.column)"
        let total = try database.readSync { Int(try $0.queryOne("SELECT COUNT(*) AS n FROM \(column.table)", [])?.int64("n") ?? 0) }
        var after: [SQLValue]?
        var done = 0
        var resealed = 0
        let keys = column.keyColumns.joined(separator: ", ")
        let select = ([keys, column.column, column.keyIDColumn] + column.extraColumns).joined(separator: ", ")
        while true {
            let page = try database.writeSync { connection -> (count: Int, last: [SQLValue]?, resealed: Int) in
                let placeholders = column.keyColumns.map { _ in "?" }.joined(separator: ", ")
                let filter = after == nil ? "" : "WHERE (\(keys)) > (\(placeholders)) "
                let rows = try connection.query(
                    "SELECT \(select) FROM \(column.table) \(filter)ORDER BY \(keys) LIMIT \(batchSize)", (after ?? []).map { $0 as any SQLBindable })
                var count = 0
                for row in rows {
                    guard let changes = try column.reseal(row, secrets) else { continue }
                    let assignments = changes.map { "\($0.0) = ?" }.joined(separator: ", ")
                    let match = (column.keyColumns + [column.column]).map { "\($0) = ?" }.joined(separator: " AND ")
                    let arguments: [any SQLBindable] = (changes.map(\.1) + column.keyColumns.map { row[$0] } + [row[column.column]]).map {
                        $0 as any SQLBindable
                    }
                    count += try connection.run("UPDATE \(column.table) SET \(assignments) WHERE \(match)", arguments)
                }
                return (rows.count, rows.last.map { last in column.keyColumns.map { last[$0] } }, count)
            }
            done += page.count
            resealed += page.resealed
            after = page.last
            progress(Progress(column: name, done: done, total: max(total, done), resealed: resealed))
            if page.count < batchSize { return resealed }
        }
    }
}
