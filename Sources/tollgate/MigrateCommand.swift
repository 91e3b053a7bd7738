import Storage
import App
import Web

/// `tollgate migrate`: applies pending migrations and says which.
enum MigrateCommand {
    static func run(configPath: String?) -> ExitStatus {
        guard let config = CommandLineTool.loadConfig(configPath) else { return .configuration }
        do {
            let database = try SQLiteDatabase(path: config.database.path)
            defer { database.close() }
            let applied = try Migrator(migrations: TollgateApp.migrations).migrate(database)
            if applied.isEmpty {
                print("Database \(config.database.path) is up to date (\(TollgateApp.migrations.count) migrations).")
            } else {
                print("Applied \(applied.count) migration(s) to \(config.database.path): \(applied.joined(separator: ", "))")
            }
            return .success
        } catch {
            CommandLineTool.printError("tollgate: migration failed: \(error)")
            return .failure
        }
    }
}
