import Domain
import Foundation
import Storage

/// Link-out reports as operators see them: `GET /admin/v1/reports`, `tollgate admin reports`.
extension OperatorActions {
    /// The reports queued in `month` (`YYYY-MM`, UTC; nil: the current one), at most `limit` of
    /// them listed, and the figures of all of them.
    /// - Throws: `UseCaseError.badRequest` for a malformed month, `StorageError`.
    public func linkOutReports(month: String?, limit: Int, now: Date) async throws -> LinkOutReportMonth {
        let bounds = try LinkOutReportMonth.bounds(month, now: now)
        let reports = try await database.read { try LinkOutReportStore.list(from: bounds.from, to: bounds.to, limit: Int(Int32.max), on: $0) }
        return LinkOutReportMonth(month: bounds.month, from: bounds.from, to: bounds.to, reports: reports, listing: limit)
    }
}

extension OperatorActions {
    /// Reports by platform and status, for `/metrics`.
    /// - Throws: `StorageError`.
    public func linkOutReportCounts() async throws -> [LinkOutReportStore.Count] {
        try await database.read { try LinkOutReportStore.counts(on: $0) }
    }
}
