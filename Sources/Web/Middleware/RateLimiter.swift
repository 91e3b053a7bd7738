import Foundation
import Synchronization

/// Counts failures per key (a client address, an email) in fixed windows, in memory. Used to
/// slow down code guessing: past the limit a key gets `429` with `Retry-After` until its
/// window ends.
///
/// Memory is bounded under a flood of distinct keys (many client addresses). Keys are spread
/// over `shardCount` shards, each with its own lock and a share of `capacity`. Past its share, a
/// shard drops the windows that have ended; if its live ones are still too many, it keeps the
/// half that ends last (long windows, such as sign-in lockouts, outlive a flood of short ones).
/// Pruning walks the shard, so it runs only after another quarter-share of keys was added:
/// `record` costs O(1) amortized, and a prune holds one shard's lock for a sixteenth of the keys.
public final class RateLimiter: Sendable {
    private struct Window {
        /// When the window ends (its start plus the length the key's first event gave).
        var end: Date
        var count: Int
    }

    private struct State {
        var windows: [String: Window] = [:]
        /// The key count past which the next `record` prunes.
        var pruneAt: Int
        /// Prunes so far and the keys they walked (for tests: pruning must stay amortized O(1)).
        var prunes = 0
        var walked = 0
    }

    private final class Shard: Sendable {
        let state: Mutex<State>
        init(pruneAt: Int) { state = Mutex(State(pruneAt: pruneAt)) }
    }

    static let shardCount = 16
    private let shards: [Shard]
    private let shardCapacity: Int

    /// - Parameter capacity: keys kept before pruning; at most about 1.25 times as many are held.
    public init(capacity: Int = 100_000) {
        shardCapacity = max(4, capacity / Self.shardCount)
        shards = (0..<Self.shardCount).map { [shardCapacity] _ in Shard(pruneAt: shardCapacity) }
    }

    /// Seconds until `key` may try again, or nil when it is under `limit` in its current window.
    public func retryAfter(_ key: String, limit: Int, now: Date) -> Int? {
        shard(for: key).state.withLock { state in
            guard let current = state.windows[key], now < current.end, current.count >= limit else { return nil }
            return max(1, Int(current.end.timeIntervalSince(now).rounded(.up)))
        }
    }

    /// Records one event for `key`; a key with no open window starts one `window` seconds long.
    public func record(_ key: String, window: TimeInterval, now: Date) {
        shard(for: key).state.withLock { state in
            if var current = state.windows[key], now < current.end {
                current.count += 1
                state.windows[key] = current
            } else {
                state.windows[key] = Window(end: now.addingTimeInterval(window), count: 1)
            }
            if state.windows.count > state.pruneAt { prune(&state, now: now) }
        }
    }

    /// Keys held, prunes so far and the keys they walked, over all shards (for tests).
    var usage: (keys: Int, prunes: Int, walked: Int) {
        shards.reduce((0, 0, 0)) { total, shard in
            shard.state.withLock { ($0.windows.count + total.0, $0.prunes + total.1, $0.walked + total.2) }
        }
    }

    private func shard(for key: String) -> Shard {
        shards[Int(UInt(bitPattern: key.hashValue) % UInt(shards.count))]
    }

    private func prune(_ state: inout State, now: Date) {
        state.prunes += 1
        state.walked += state.windows.count
        state.windows = state.windows.filter { $0.value.end > now }
        if state.windows.count > shardCapacity {
            let latest = state.windows.sorted { $0.value.end > $1.value.end }.prefix(shardCapacity / 2)
            state.windows = Dictionary(uniqueKeysWithValues: latest.map { ($0.key, $0.value) })
        }
        state.pruneAt = max(shardCapacity, state.windows.count + shardCapacity / 4)
    }
}
