import App
import Domain
import Foundation
import UseCases

extension AdminCommand {
    /// `admin events [--status S] [--limit N]`: one line per event and endpoint, newest first.
    static func events(_ services: Services, options: [String: String]) async throws {
        let status = options["status"]
        if let status, !EventStore.statuses.contains(status) {
            throw UsageError(message: "--status must be one of \(EventStore.statuses.joined(separator: ", "))")
        }
        let entries = try await services.operatorActions.events(status: status, limit: try limitOption(options))
        print(["ID", "TYPE", "ENDPOINT", "STATUS", "ATTEMPTS", "OCCURRED", "LAST"].joined(separator: "\t"))
        for entry in entries {
            let last = entry.lastError ?? entry.lastStatus.map { "HTTP \($0)" } ?? ""
            print([
                entry.eventID, entry.type, entry.endpointID, entry.status, String(entry.attempts), Timestamp.rfc3339(entry.occurredAt), last,
            ].joined(separator: "\t"))
        }
        print("\(entries.count) delivery(ies)")
    }
}
