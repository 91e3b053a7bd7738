import Foundation
import UseCases

/// Builds the per-route middleware that need shared state: failure limits per client and
/// `Idempotency-Key` replies.
struct RouteMiddleware: Sendable {
    let limiter: RateLimiter
    let clientAddress: ClientAddressResolver
    let replies: IdempotentReplies
    let now: @Sendable () -> Date

    /// A per-client budget of `limit` requests per `window` seconds.
    func limit(_ bucket: String, _ limit: Int, per window: TimeInterval) -> RateLimitMiddleware {
        limits([RateLimitMiddleware.Budget(bucket, limit, per: window)], counting: .everyRequest)
    }

    /// Several budgets checked and counted together.
    func limits(_ budgets: [RateLimitMiddleware.Budget], counting: RateLimitMiddleware.Counting) -> RateLimitMiddleware {
        RateLimitMiddleware(limiter: limiter, clientAddress: clientAddress, budgets: budgets, counting: counting, now: now)
    }

    /// `Idempotency-Key` replies for an endpoint.
    func idempotent(_ scope: String) -> IdempotencyMiddleware {
        IdempotencyMiddleware(replies: replies, scope: scope, now: now)
    }
}
