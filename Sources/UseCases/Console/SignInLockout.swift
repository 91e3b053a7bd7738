import Foundation
import Synchronization

/// Failed console sign-ins per key (a client address, or an operator once their password was
/// right) in a sliding window: 5 failures in 15 minutes lock the key until the oldest one ages
/// out. Kept in memory, per process, as the web's rate limits are.
public final class SignInLockout: Sendable {
    /// Failures allowed per window.
    public static let limit = 5
    /// The window.
    public static let window: TimeInterval = 15 * 60
    private static let capacity = 100_000

    private let failures = Mutex<[String: [Date]]>([:])

    public init() {}

    /// Seconds until `key` may try again, or nil when it may now.
    public func retryAfter(_ key: String, now: Date) -> Int? {
        failures.withLock { table in
            let recent = (table[key] ?? []).filter { now.timeIntervalSince($0) < Self.window }
            table[key] = recent.isEmpty ? nil : recent
            guard recent.count >= Self.limit, let oldest = recent.first else { return nil }
            return max(1, Int((Self.window - now.timeIntervalSince(oldest)).rounded(.up)))
        }
    }

    /// Counts a failure of `key`.
    public func record(_ key: String, now: Date) {
        failures.withLock { table in
            if table.count >= Self.capacity { table = table.filter { $0.value.contains { now.timeIntervalSince($0) < Self.window } } }
            table[key, default: []].append(now)
        }
    }
}
