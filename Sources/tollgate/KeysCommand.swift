import App
import Domain
import Foundation
import Storage
import UseCases

/// `tollgate keys status|rotate`: rows per key of `secret_keys` (`KeyUsage`), and moving every
/// row to the current key (`KeyRotation`), printing a progress line per page.
enum KeysCommand {
    static func run(action: String, batchSize: String?, configPath: String?) -> ExitStatus {
        let rows = batchSize.map { Int($0) ?? 0 } ?? 200
        guard (1...100_000).contains(rows) else {
            CommandLineTool.printError("tollgate: keys rotate: --batch-size must be a number of rows from 1 to 100000")
            return .usage
        }
        guard let config = CommandLineTool.loadConfig(configPath) else { return .configuration }
        do {
            let secrets = try DomainSecrets(secretKeys: config.secretKeyList)
            let database = try DatabaseOpener.open(config.database)
            defer { database.close() }
            if action == "rotate" {
                // Like `serve`: the rotation needs this build's columns (`code_sha256`).
                _ = try TollgateReleases.migrator.migrate(database)
                let resealed = try KeyRotation(database: database, secrets: secrets, batchSize: rows).run { progress in
                    // Unbuffered: an operator (or a test) sees each page as it commits.
                    FileHandle.standardOutput.write(Data((progress.line + "\n").utf8))
                }
                print("Rotation done: \(resealed) row(s) re-sealed under key \(secrets.keyID).")
            }
            let pending = try TollgateReleases.migrator.pending(database)
            guard pending.isEmpty else {
                CommandLineTool.printError(
                    "tollgate: keys status: \(pending.count) migration(s) to apply first: run `tollgate migrate` (or start the service)")
                return .failure
            }
            for line in try KeyUsage.count(database).lines(secrets) { print(TerminalText.safe(line)) }
            return .success
        } catch {
            CommandLineTool.printError("tollgate: keys \(action): \(error)")
            return .failure
        }
    }
}
