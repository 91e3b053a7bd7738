import Domain
import Foundation
import Storage

/// Start-up's quick look at the keys sealed rows use (`KeyListCheck`), without reading every
/// row: per sealed column, the distinct key ids are found by hopping along the index on its
/// key-id column (migration 0471), one seek per key in use, so the cost does not grow with the
/// rows. Rows are counted only for a key the list drops (the refusal names how many), and codes
/// from before key ids only when none of them opens.
public enum KeyProbe {
    /// The rows under each key `secrets` does not list, by key id (empty: every key in use is listed).
    /// - Throws: `StorageError`.
    public static func rowsUnderUnlistedKeys(_ database: Database, secrets: DomainSecrets) throws -> [(keyID: String, rows: Int)] {
        try database.readSync { connection in
            var byKey: [String: Int] = [:]
            for column in SealedColumn.all {
                for keyID in try keyIDs(column, on: connection) where secrets.key(id: keyID) == nil {
                    let rows = try count(column, keyID: keyID, on: connection)
                    if rows > 0 { byKey[keyID, default: 0] += rows }
                }
            }
            return byKey.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        }
    }

    /// One redemption code still found by the keyed hash of its time (no `code_sha256`), if any:
    /// its id and sealed code.
    /// - Throws: `StorageError`.
    public static func codeBeforeKeyIDs(_ database: Database) throws -> (id: String, sealed: [UInt8])? {
        try database.readSync { connection in
            try connection.queryOne("SELECT id, code_sealed FROM redemption_codes WHERE code_sha256 IS NULL LIMIT 1", []).map {
                (try $0.string("id"), try $0.blob("code_sealed"))
            }
        }
    }

    /// How many codes are still found by a keyed hash (for a refusal's message).
    /// - Throws: `StorageError`.
    public static func codesBeforeKeyIDs(_ database: Database) throws -> Int {
        try database.readSync { try $0.queryOne("SELECT COUNT(*) AS n FROM redemption_codes WHERE code_sha256 IS NULL", [])?.int("n") ?? 0 }
    }

    /// The distinct non-NULL key ids of `column`, each found by one index seek past the previous.
    static func keyIDs(_ column: SealedColumn, on connection: Connection) throws -> [String] {
        var found: [String] = []
        var after = ""
        while let row = try connection.queryOne(
            "SELECT \(column.keyIDColumn) AS key_id FROM \(column.table) WHERE \(column.keyIDColumn) > ? ORDER BY \(column.keyIDColumn) LIMIT 1",
            [after])
        {
            after = try row.string("key_id")
            found.append(after)
        }
        return found
    }

    /// The rows of `column` sealed under `keyID` (plain values of a column that may hold them do
    /// not count: nothing is sealed in them).
    static func count(_ column: SealedColumn, keyID: String, on connection: Connection) throws -> Int {
        try connection.queryOne(
            "SELECT COUNT(*) AS n FROM \(column.table) WHERE \(column.keyIDColumn) = ? AND \(column.keyIDExpression) = ?", [keyID, keyID]
        )?.int("n") ?? 0
    }
}
