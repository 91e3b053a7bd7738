import Foundation
import HTTPCore
import HTTPRouting
import UseCases

/// Builds the per-route middleware that need shared state: budgets per client (routes name
/// their bucket; the numbers are `RateBudgets`') and `Idempotency-Key` replies.
struct RouteMiddleware: Sendable {
    let limiter: RateLimiter
    let clientAddress: ClientAddressResolver
    let budgets: RateBudgets
    let replies: IdempotentReplies
    let now: @Sendable () -> Date

    /// Every request counts against `bucket`'s budget per client address.
    func limit(_ bucket: RateBucket) -> RateLimitMiddleware {
        limits([bucket], counting: .everyRequest)
    }

    /// Several budgets per client address, checked and counted together.
    func limits(_ buckets: [RateBucket], counting: RateLimitMiddleware.Counting) -> RateLimitMiddleware {
        RateLimitMiddleware(limiter: limiter, clientAddress: clientAddress, budgets: buckets.map { budgets[$0] }, counting: counting, now: now)
    }

    /// A budget a handler applies itself, to keys only the decoded body gives (an app user, an email).
    func throttle(_ bucket: RateBucket) -> Throttle {
        Throttle(limiter: limiter, budget: budgets[bucket])
    }

    /// The client's address: as a limiting middleware already resolved it, else resolved now.
    func client(_ request: HTTPRequest, _ context: RequestContext) -> String {
        context.clientAddress ?? clientAddress.address(for: request, context: context)
    }

    /// `Idempotency-Key` replies for an endpoint.
    func idempotent(_ scope: String) -> IdempotencyMiddleware {
        IdempotencyMiddleware(replies: replies, scope: scope, now: now)
    }
}

/// One bucket's budget applied by a handler to keys of its choosing.
struct Throttle: Sendable {
    let limiter: RateLimiter
    let budget: RateBudget

    /// Throws `429` with `Retry-After` when any of `keys` is over the budget.
    func check(_ keys: [String], now: Date) throws {
        for key in keys { try limiter.check(budget, key: key, now: now) }
    }

    /// Counts one event for each of `keys`.
    func record(_ keys: [String], now: Date) {
        for key in keys { limiter.record(budget, key: key, now: now) }
    }
}
