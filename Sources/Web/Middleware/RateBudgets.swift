import Foundation
import HTTPCore
import HTTPRouting

/// The buckets routes name; their numbers are the `rate_limits` table's (in Configuration),
/// given to the web layer through `WebSettings.rateBudgets`.
enum RateBucket: String, CaseIterable, Sendable {
    case redeem
    case redeemUser = "redeem_user"
    case resend
    case login
    case webLogin = "web_login"
    case authEmail = "auth_email"
    case accountEmail = "account_email"
    case confirmResend = "confirm_resend"
    case accountResend = "account_resend"
    case accountBilling = "account_billing"
    case webSignIn = "web_sign_in"
    case webSignInCode = "web_sign_in_code"
}

/// One bucket's allowance in effect: `limit` per `window` seconds per key.
struct RateBudget: Sendable, Equatable {
    let bucket: RateBucket
    let limit: Int
    let window: TimeInterval
}

/// Bucket → budget in effect, as the composition root read it from `rate_limits`.
public struct RateBudgets: Sendable {
    private let budgets: [String: (limit: Int, windowSeconds: Int)]

    /// - Parameter budgets: bucket name → budget; every bucket a route names must be there.
    public init(_ budgets: [String: (limit: Int, windowSeconds: Int)]) {
        for bucket in RateBucket.allCases {
            precondition(budgets[bucket.rawValue] != nil, "rate_limits has no budget for \(bucket.rawValue)")
        }
        self.budgets = budgets
    }

    subscript(bucket: RateBucket) -> RateBudget {
        let budget = budgets[bucket.rawValue] ?? (limit: 0, windowSeconds: 0)
        return RateBudget(bucket: bucket, limit: budget.limit, window: TimeInterval(budget.windowSeconds))
    }
}

extension RateLimiter {
    /// Throws `429` with `Retry-After` while `key` is over `budget` in its bucket.
    func check(_ budget: RateBudget, key: String, now: Date) throws {
        if let wait = retryAfter(budget.bucket.rawValue + ":" + key, limit: budget.limit, now: now) {
            throw APIError.rateLimited(retryAfterSeconds: wait)
        }
    }

    /// Counts one event for `key` in `budget`'s bucket.
    func record(_ budget: RateBudget, key: String, now: Date) {
        record(budget.bucket.rawValue + ":" + key, window: budget.window, now: now)
    }
}
