import Domain
import Storage
import UseCases

/// Start-up's check of `secret_keys` against the database: a list that drops a key rows still
/// use stops start-up, naming the key's id and how many rows use it (those rows would open under
/// no key). Codes stored before key ids carry no id: one of them must open under a listed key.
/// Indexed probes only (`KeyProbe`): rows are counted only when start-up refuses.
public enum KeyListCheck {
    /// - Throws: `StartupError` for `secret_keys`; `StorageError`.
    public static func check(_ database: Database, secrets: DomainSecrets) throws {
        let dropped = try KeyProbe.rowsUnderUnlistedKeys(database, secrets: secrets)
        guard dropped.isEmpty else {
            let named = dropped.map { "key \($0.keyID) (\($0.rows) row(s))" }.joined(separator: ", ")
            throw StartupError(
                key: "secret_keys",
                "drops \(named) that rows still use: list that key again (after the current one) and run `tollgate keys rotate` before dropping it")
        }
        // Codes from before key ids carry no id: one of them tells whether their key is listed.
        guard let legacy = try KeyProbe.codeBeforeKeyIDs(database) else { return }
        let vault = try CodeVault(secrets: secrets)
        guard (try? vault.open(legacy.sealed, codeID: legacy.id)) == nil else { return }
        throw StartupError(
            key: "secret_keys",
            "drops the key of the \(try KeyProbe.codesBeforeKeyIDs(database)) code(s) stored before key ids (none of them opens under a listed key): list the key of that time again and run `tollgate keys rotate`"
        )
    }
}
