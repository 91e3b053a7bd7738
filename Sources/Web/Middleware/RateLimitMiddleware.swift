import Foundation
import HTTPCore
import HTTPRouting

/// Limits a route per client: before the handler, a client over any of its budgets gets `429`
/// with `Retry-After`; after it, the request is counted against every budget (each request, or
/// only those whose `outcome` is a failure, such as unknown codes). The handler finds the
/// resolved address in `context.clientAddress` (for limits of its own, per app user or email).
struct RateLimitMiddleware: Middleware {
    /// Which requests use up the budget.
    enum Counting: Sendable {
        case everyRequest
        /// Only answers with one of these outcomes.
        case outcomes(Set<String>)
    }

    let limiter: RateLimiter
    let clientAddress: ClientAddressResolver
    let budgets: [RateBudget]
    let counting: Counting
    let now: @Sendable () -> Date

    func handle(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        let client = context.clientAddress ?? clientAddress.address(for: request, context: context)
        var context = context
        context.clientAddress = client
        let now = self.now()
        for budget in budgets { try limiter.check(budget, key: client, now: now) }
        let response = try await next(request, context)
        let counts: Bool
        switch counting {
        case .everyRequest: counts = true
        case .outcomes(let failures): counts = response.outcome.map(failures.contains) ?? false
        }
        if counts {
            for budget in budgets { limiter.record(budget, key: client, now: now) }
        }
        return response
    }
}
