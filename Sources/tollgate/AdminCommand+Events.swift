import App
import Domain
import Foundation
import UseCases

extension AdminCommand {
    /// `admin events [--status S] [--limit N]`: one line per event and endpoint, newest first.
    static func events(_ services: UseCaseFactory, options: [String: String]) async throws {
        let status = options["status"]
        if let status, !EventStore.statuses.contains(status) {
            throw UsageError(message: "--status must be one of \(EventStore.statuses.joined(separator: ", "))")
        }
        let entries = try await services.operatorActions.events(status: status, limit: try limitOption(options))
        print(TerminalText.row(["ID", "TYPE", "ENDPOINT", "STATUS", "ATTEMPTS", "OCCURRED", "LAST"]))
        for entry in entries {
            let last = entry.lastError ?? entry.lastStatus.map { "HTTP \($0)" } ?? ""
            print(
                TerminalText.row([
                    entry.eventID, entry.type, entry.endpointID, entry.status, String(entry.attempts), Timestamp.rfc3339(entry.occurredAt), last
                ]))
        }
        print("\(entries.count) delivery(ies)")
    }
}
