import Foundation
import Storage

/// `tollgate backup FILE`: a consistent online copy of the database (the service may keep
/// running and writing meanwhile).
enum BackupCommand {
    static func run(configPath: String?, destination: String) async -> ExitStatus {
        guard let config = CommandLineTool.loadConfig(configPath) else { return .configuration }
        guard config.database.url == nil else {
            CommandLineTool.printError(
                "tollgate: backup copies a SQLite file; this configuration uses PostgreSQL (database.url): back it up with pg_dump or the server's own tools"
            )
            return .failure
        }
        guard FileManager.default.fileExists(atPath: config.database.path) else {
            CommandLineTool.printError("tollgate: no database at \(config.database.path) to back up")
            return .failure
        }
        do {
            let database = try SQLiteDatabase(path: config.database.path, readers: 1)
            defer { database.close() }
            try await database.backup(to: destination)
            print("Backed up \(config.database.path) to \(destination).")
            return .success
        } catch {
            CommandLineTool.printError("tollgate: backup failed: \(error)")
            return .failure
        }
    }
}
