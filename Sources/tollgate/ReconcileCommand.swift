import App
import Foundation
import UseCases

/// `tollgate reconcile [--since 72h]`: one reconcile run of every configured provider, on the same
/// database as the service (which may keep running: a provider's run is claimed, so the service's
/// own worker and this command never do it twice). Prints a line per provider; exits 1 when one
/// could not be reached or failed.
enum ReconcileCommand {
    static func run(since: String?, configPath: String?) async -> ExitStatus {
        var start: Date?
        if let since {
            guard let seconds = duration(since) else {
                CommandLineTool.printError("tollgate: --since takes a duration such as 90m, 72h or 7d (got \(since))")
                return .usage
            }
            start = Date().addingTimeInterval(-seconds)
        }
        guard let config = CommandLineTool.loadConfig(configPath) else { return .configuration }
        let essentials: Essentials
        let reconcile: ReconcilePurchases
        do {
            essentials = try Essentials(config: config, logger: CommandLineTool.logger(for: config))
            reconcile = try UseCaseFactory(essentials).reconcile()
        } catch {
            CommandLineTool.printError("tollgate: cannot open the service: \(error)")
            return .failure
        }
        defer { essentials.database.close() }
        guard !reconcile.providers.isEmpty else {
            CommandLineTool.printError("tollgate: nothing to reconcile: neither Stripe, the App Store Server API nor Google Play is configured")
            return .failure
        }
        var healthy = true
        for report in await reconcile.run(since: start) {
            print(
                "\(report.provider)\t\(report.outcome)\tchecked \(report.checked)\tchanges \(report.changes)\(report.error.map { "\t" + TerminalText.safe($0) } ?? "")"
            )
            healthy = healthy && (report.outcome == "ok" || report.outcome == "busy")
        }
        return healthy ? .success : .failure
    }

    /// `90m`, `72h`, `7d`, `3600s` or plain seconds.
    static func duration(_ text: String) -> TimeInterval? {
        let units: [Character: TimeInterval] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        if let unit = text.last.flatMap({ units[$0] }), let value = Double(text.dropLast()), value >= 0 { return value * unit }
        return Double(text).flatMap { $0 >= 0 ? $0 : nil }
    }
}
