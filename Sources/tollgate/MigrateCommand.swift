import App
import Storage
import UseCases

/// `tollgate migrate`: applies pending migrations and says which.
enum MigrateCommand {
    static func run(configPath: String?) -> ExitStatus {
        guard let config = CommandLineTool.loadConfig(configPath) else { return .configuration }
        do {
            let database = try DatabaseOpener.open(config.database)
            defer { database.close() }
            let name = DatabaseOpener.name(config.database, database)
            let applied = try TollgateReleases.migrator.migrate(database)
            if applied.isEmpty {
                print("Database \(name) is up to date (\(TollgateMigrations.all.count) migrations).")
            } else {
                print("Applied \(applied.count) migration(s) to \(name): \(applied.joined(separator: ", "))")
            }
            return .success
        } catch {
            CommandLineTool.printError("tollgate: migration failed: \(error)")
            return .failure
        }
    }
}
