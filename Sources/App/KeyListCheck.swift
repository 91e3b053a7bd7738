import Domain
import Storage
import UseCases

/// Start-up's check of `secret_keys` against the database: a list that drops a key rows still
/// use stops start-up, naming the key's id and how many rows use it (those rows would open under
/// no key). Codes stored before key ids carry no id: one of them must open under a listed key.
public enum KeyListCheck {
    /// - Throws: `StartupError` for `secret_keys`; `StorageError`.
    public static func check(_ database: Database, secrets: DomainSecrets) throws {
        let usage = try KeyUsage.count(database)
        let dropped = usage.rowsUnderUnlistedKeys(secrets)
        guard dropped.isEmpty else {
            let named = dropped.map { "key \($0.keyID) (\($0.rows) row(s))" }.joined(separator: ", ")
            throw StartupError(
                key: "secret_keys",
                "drops \(named) that rows still use: list that key again (after the current one) and run `tollgate keys rotate` before dropping it")
        }
        guard usage.keyedCodeHashes > 0 else { return }
        // Codes from before key ids carry no id: one of them tells whether their key is listed.
        let vault = try CodeVault(secrets: secrets)
        let opens = try database.readSync { connection in
            guard let row = try connection.queryOne("SELECT id, code_sealed FROM redemption_codes WHERE code_sha256 IS NULL LIMIT 1", []) else { return true }
            return (try? vault.open(try row.blob("code_sealed"), codeID: try row.string("id"))) != nil
        }
        guard opens else {
            throw StartupError(
                key: "secret_keys",
                "drops the key of the \(usage.keyedCodeHashes) code(s) stored before key ids (none of them opens under a listed key): list the key of that time again and run `tollgate keys rotate`")
        }
    }
}
