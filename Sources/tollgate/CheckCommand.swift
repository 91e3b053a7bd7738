import App
import Domain
import Foundation
import Storage
import UseCases

/// `tollgate check`: verifies the configured database (a restored backup, say) without changing
/// it: storage integrity, a schema this build knows, every sealed row opening under the
/// configured key (`CheckDatabase`). Prints one line per check; exits 1 naming each problem.
enum CheckCommand {
    static func run(configPath: String?) -> ExitStatus {
        guard let config = CommandLineTool.loadConfig(configPath) else { return .configuration }
        if config.database.url == nil, !FileManager.default.fileExists(atPath: config.database.path) {
            CommandLineTool.printError("tollgate: check: no database at \(config.database.path)")
            return .failure
        }
        let report: CheckDatabase.Report
        let name: String
        do {
            let database = try DatabaseOpener.open(config.database)
            defer { database.close() }
            name = DatabaseOpener.name(config.database, database)
            report = CheckDatabase(
                database: database, migrations: TollgateMigrations.all, release: TollgateReleases.current,
                secrets: try DomainSecrets(secretKeys: config.secretKeyList)
            ).run()
        } catch {
            CommandLineTool.printError("tollgate: check: cannot open the database: \(error)")
            return .failure
        }
        for line in report.passed { print(TerminalText.safe(line)) }
        for problem in report.problems { CommandLineTool.printError("tollgate: check: \(TerminalText.safe(problem))") }
        guard report.problems.isEmpty else {
            CommandLineTool.printError("tollgate: check: \(name) has \(report.problems.count) problem(s)")
            return .failure
        }
        print("Database \(name) is sound.")
        return .success
    }
}
