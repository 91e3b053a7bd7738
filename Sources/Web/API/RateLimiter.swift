import Foundation
import Synchronization

/// Counts failures per key (a client address, an email) in fixed windows, in memory. Used to
/// slow down code guessing: past the limit a key gets `429` with `Retry-After` until its
/// window ends.
public final class RateLimiter: Sendable {
    private struct Window {
        var start: Date
        var count: Int
    }

    private let windows = Mutex<[String: Window]>([:])

    public init() {}

    /// Seconds until `key` may try again, or nil when it is under `limit` in the current window.
    public func retryAfter(_ key: String, limit: Int, window: TimeInterval, now: Date) -> Int? {
        windows.withLock { windows in
            guard let current = windows[key], now.timeIntervalSince(current.start) < window else { return nil }
            guard current.count >= limit else { return nil }
            return max(1, Int((window - now.timeIntervalSince(current.start)).rounded(.up)))
        }
    }

    /// Records one event for `key`.
    public func record(_ key: String, window: TimeInterval, now: Date) {
        windows.withLock { windows in
            if var current = windows[key], now.timeIntervalSince(current.start) < window {
                current.count += 1
                windows[key] = current
            } else {
                windows[key] = Window(start: now, count: 1)
            }
            if windows.count > 100_000 {
                // Bounded memory under a flood: drop windows that have ended.
                windows = windows.filter { now.timeIntervalSince($0.value.start) < window }
            }
        }
    }
}
