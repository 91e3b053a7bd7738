import Domain
import Foundation

extension ConsoleQueries {
    /// Accounts that pay twice for one entitlement now (API.md "Paid twice"), at most a page of
    /// them: the attention page's "duplicates across stores".
    /// - Throws: `UseCaseError.forbidden`, `StorageError`.
    public func duplicates(by actor: AuditActor, now: Date) async throws -> [DuplicateSubscriptions.Pair] {
        try OperatorActions.require(.read, actor)
        return try await DuplicateSubscriptionsReport(database: database).current(now: now, limit: Self.pageSize)
    }

    /// The redemption funnel of the last 7 days (API.md "The funnel"), as `GET /admin/v1/funnel`
    /// reports it.
    /// - Throws: `UseCaseError.forbidden`, `StorageError`.
    public func funnel(by actor: AuditActor, now: Date) async throws -> FunnelFigures {
        try OperatorActions.require(.read, actor)
        return try await FunnelReport(database: database).report(since: .week, now: now).figures
    }
}
