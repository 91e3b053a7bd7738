import Domain
import Foundation
import Storage

/// `tollgate keys status`: how many rows of each sealed column use each key (by id; "no id" for
/// values sealed before key ids), and how many redemption codes are still found by a keyed hash.
/// Counts every row; start-up's check uses the indexed `KeyProbe` instead.
public struct KeyUsage: Sendable, Equatable {
    /// Rows of one column under one key.
    public struct Entry: Sendable, Equatable {
        /// `table.column`.
        public let column: String
        /// The key's id; nil for values sealed before key ids.
        public let keyID: String?
        public let rows: Int

        public init(column: String, keyID: String?, rows: Int) {
            self.column = column
            self.keyID = keyID
            self.rows = rows
        }
    }

    /// Every (column, key) with at least one row, in `SealedColumn.all`'s order.
    public let entries: [Entry]
    /// Redemption codes still found by the keyed hash of their time (no `code_sha256` yet).
    public let keyedCodeHashes: Int

    /// Counts on `database` (one grouped query per column).
    /// - Throws: `StorageError`.
    public static func count(_ database: Database) throws -> KeyUsage {
        try database.readSync { connection in
            var entries: [Entry] = []
            for column in SealedColumn.all {
                let rows = try connection.query(
                    "SELECT \(column.keyIDExpression) AS key_id, COUNT(*) AS n FROM \(column.table) GROUP BY 1", [])
                var counts: [String?: Int] = [:]
                for row in rows {
                    let keyID = column.keyID(from: row["key_id"])
                    if keyID == "" { continue }
                    counts[keyID, default: 0] += Int(try row.int64("n"))
                }
                for (keyID, rows) in counts.sorted(by: { ($0.key ?? "") < ($1.key ?? "") }) {
                    entries.append(Entry(column: "\(column.table).\(column.column)", keyID: keyID, rows: rows))
                }
            }
            let legacy = try connection.queryOne("SELECT COUNT(*) AS n FROM redemption_codes WHERE code_sha256 IS NULL", [])
            return KeyUsage(entries: entries, keyedCodeHashes: Int(try legacy?.int64("n") ?? 0))
        }
    }

    /// Rows still using something from before key ids (a box without an id, or a keyed code hash).
    public var rowsBeforeKeyIDs: Int {
        entries.filter { $0.keyID == nil }.reduce(0) { $0 + $1.rows } + keyedCodeHashes
    }

    /// The status lines: one per column and key, the current key marked.
    public func lines(_ secrets: DomainSecrets) -> [String] {
        var lines = secrets.all.enumerated().map { index, key in
            "key \(key.keyID): " + (index == 0 ? "current (seals and signs)" : "listed (opens and verifies)")
        }
        for entry in entries {
            let key = entry.keyID.map { id in secrets.key(id: id) == nil ? "\(id) (not listed)" : id } ?? "no id (sealed before key ids)"
            lines.append("\(entry.column): \(entry.rows) row(s) under key \(key)")
        }
        if keyedCodeHashes > 0 { lines.append("redemption_codes.code_hash: \(keyedCodeHashes) row(s) found by a keyed hash (before key ids)") }
        let old = entries.filter { $0.keyID != secrets.keyID }.reduce(0) { $0 + $1.rows } + keyedCodeHashes
        lines.append(old == 0 ? "every row uses the current key" : "\(old) row(s) use an older key: run `tollgate keys rotate`")
        return lines
    }
}
