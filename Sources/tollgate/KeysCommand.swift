import App
import Domain
import Foundation
import Storage
import UseCases

/// `tollgate keys status|rotate`: rows per key of `secret_keys` (`KeyUsage`), and moving every
/// row to the current key (`KeyRotation`), printing a progress line per page.
enum KeysCommand {
    static func run(action: String, configPath: String?) -> ExitStatus {
        guard let config = CommandLineTool.loadConfig(configPath) else { return .configuration }
        do {
            let secrets = try DomainSecrets(secretKeys: config.secretKeyList)
            let database = try DatabaseOpener.open(config.database)
            defer { database.close() }
            _ = try Migrator(migrations: Services.migrations).migrate(database)
            if action == "rotate" {
                let resealed = try KeyRotation(database: database, secrets: secrets).run { progress in
                    // Unbuffered: an operator (or a test) sees each page as it commits.
                    FileHandle.standardOutput.write(Data((progress.line + "\n").utf8))
                }
                print("Rotation done: \(resealed) row(s) re-sealed under key \(secrets.keyID).")
            }
            for line in try KeyUsage.count(database).lines(secrets) { print(TerminalText.safe(line)) }
            return .success
        } catch {
            CommandLineTool.printError("tollgate: keys \(action): \(error)")
            return .failure
        }
    }
}
