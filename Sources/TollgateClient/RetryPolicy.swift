import Foundation

/// How often and how patiently the client retries a call that failed on the way: no answer
/// (offline, refused, dropped), a `5xx` or a `429`. API.md: SDKs retry up to 6 times, so the
/// standard policy makes 7 attempts (the first and 6 retries); a redemption carries the same
/// `Idempotency-Key` on every attempt, so a retry never redeems twice.
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included (at least 1).
    public var maxAttempts: Int
    /// The wait before the second attempt; each later wait doubles, with jitter.
    public var baseDelay: Duration
    /// The longest wait between two attempts that the backoff alone produces.
    public var maxDelay: Duration
    /// The longest `Retry-After` the client sleeps through; a longer one ends the retries at
    /// once with the `rate_limited` (or `5xx`) error, so the app can tell the user.
    public var maxRetryAfter: Duration

    /// - Parameters: see the properties; the defaults make 7 attempts (6 retries) and wait 0.5, 1,
    ///   2, 4, 8, 8 s (±25 %) between them.
    public init(
        maxAttempts: Int = 7, baseDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(8), maxRetryAfter: Duration = .seconds(60)
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
    }

    /// API.md's: up to 6 retries (7 attempts) with exponential backoff.
    public static let standard = RetryPolicy()

    /// The wait after failed attempt `attempt` (1-based): the backoff, or the server's
    /// `Retry-After` when that is longer; nil when `Retry-After` exceeds `maxRetryAfter`.
    func delay(afterAttempt attempt: Int, retryAfter: Duration?) -> Duration? {
        let doubling = min(Double(attempt - 1), 30)
        let backoff = min(baseDelay * pow(2, doubling), maxDelay)
        let jittered = backoff * Double.random(in: 0.75...1.25)
        guard let retryAfter else { return jittered }
        guard retryAfter <= maxRetryAfter else { return nil }
        return max(retryAfter, jittered)
    }

    /// `Retry-After` as delta-seconds or an HTTP-date (RFC 9110 §10.2.3).
    static func parseRetryAfter(_ value: String?, now: Date = Date()) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value) { return .seconds(max(0, seconds)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return .seconds(max(0, Int(date.timeIntervalSince(now).rounded(.up))))
    }
}
