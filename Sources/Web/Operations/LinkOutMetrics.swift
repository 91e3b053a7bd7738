import Domain
import Foundation
import Logging
import UseCases

/// The link-out part of `/metrics` (from the database, so every instance shows the same):
/// reports owed to Apple and Google by status, and how long the oldest unsent one has waited
/// (Google wants each within 24 hours).
struct LinkOutMetrics: Sendable {
    let operations: OperatorActions

    /// - Throws: `StorageError` when the counts cannot be read.
    func write(to text: inout PrometheusText, now: Date) async throws {
        let counts = try await operations.linkOutReportCounts()
        let platforms = ["apple", "google"]
        text.family("tollgate_link_out_reports", .gauge, help: "Link-out reports by platform and status (pending: queued or being sent).")
        for platform in platforms {
            for status in ["pending", "sent", "failed"] {
                let matching = counts.filter { $0.reporting.rawValue == platform && Self.status($0.status) == status }
                text.sample("tollgate_link_out_reports", [("platform", platform), ("status", status)], matching.reduce(0) { $0 + $1.count })
            }
        }
        text.family(
            "tollgate_link_out_oldest_pending_seconds", .gauge, help: "Age of the oldest link-out report not yet sent, by platform (0: none).")
        for platform in platforms {
            let oldest = counts.filter { $0.reporting.rawValue == platform && Self.status($0.status) == "pending" }.map(\.oldest).min()
            text.sample(
                "tollgate_link_out_oldest_pending_seconds", [("platform", platform)], oldest.map { max(0, Int(now.timeIntervalSince($0))) } ?? 0)
        }
    }

    private static func status(_ stored: String) -> String { stored == "sending" ? "pending" : stored }
}
