import Foundation
import HTTPCore
import HTTPRouting

/// Limits a route per client: before the handler, a client over any of its budgets gets `429`
/// with `Retry-After`; after it, the request is counted against every budget (each request, or
/// only those whose `outcome` is a failure, such as unknown codes). The handler finds the
/// resolved address in `context.clientAddress` (for limits of its own, per app user).
struct RateLimitMiddleware: Middleware {
    /// Which requests use up the budget.
    enum Counting: Sendable {
        case everyRequest
        /// Only answers with one of these outcomes.
        case outcomes(Set<String>)
    }

    /// One allowance: `limit` per `window` seconds per client address.
    struct Budget: Sendable {
        let bucket: String
        let limit: Int
        let window: TimeInterval

        init(_ bucket: String, _ limit: Int, per window: TimeInterval) {
            self.bucket = bucket
            self.limit = limit
            self.window = window
        }
    }

    let limiter: RateLimiter
    let clientAddress: ClientAddressResolver
    let budgets: [Budget]
    let counting: Counting
    let now: @Sendable () -> Date

    func handle(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        let client = clientAddress.address(for: request, context: context)
        var context = context
        context.clientAddress = client
        let keyed = budgets.map { budget in (budget, budget.bucket + ":" + client) }
        let now = self.now()
        for (budget, key) in keyed {
            if let wait = limiter.retryAfter(key, limit: budget.limit, now: now) {
                throw APIError.rateLimited(retryAfterSeconds: wait)
            }
        }
        let response = try await next(request, context)
        let counts: Bool
        switch counting {
        case .everyRequest: counts = true
        case .outcomes(let failures): counts = response.outcome.map(failures.contains) ?? false
        }
        if counts {
            for (budget, key) in keyed { limiter.record(key, window: budget.window, now: now) }
        }
        return response
    }
}
