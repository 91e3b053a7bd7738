import Synchronization

/// Which codes app users recently redeemed again, so their next retry (an SDK retries up to six
/// times, an app re-opens the emailed link) skips the reader that would find it out and goes
/// straight to the writer (`RedeemCode+Repeat.swift` in UseCases). Nothing here is trusted: the writer re-reads
/// the code, purchase and account, and a request that is no longer a repeat takes the full
/// path (call `forget` then). Keys are the code's stored hash, never the code itself.
///
/// Bounded to `capacity` entries in two generations: lookups promote an entry to the current
/// one, and when it is half full the older generation is dropped, so the entries used least
/// recently go first and each operation is O(1).
public final class RecentRepeats: Sendable {
    private struct Key: Hashable {
        let codeHash: String
        let appUserID: String
    }

    private struct Generations {
        var current: [Key: String] = [:]
        var previous: [Key: String] = [:]
    }

    /// The most entries kept.
    public let capacity: Int
    private let generations = Mutex(Generations())

    public init(capacity: Int = 10_000) {
        precondition(capacity >= 2, "RecentRepeats needs room for two generations")
        self.capacity = capacity
    }

    /// The id of the code whose hash is `codeHash`, when `appUserID` redeemed it again lately.
    public func codeID(codeHash: String, appUserID: String) -> String? {
        let key = Key(codeHash: codeHash, appUserID: appUserID)
        return generations.withLock { state in
            if let id = state.current[key] { return id }
            guard let id = state.previous.removeValue(forKey: key) else { return nil }
            Self.insert(key, id, into: &state, capacity: capacity)
            return id
        }
    }

    /// Records that `appUserID` redeemed the code `codeID` (hash `codeHash`) again.
    public func remember(codeHash: String, appUserID: String, codeID: String) {
        let key = Key(codeHash: codeHash, appUserID: appUserID)
        generations.withLock { state in
            state.previous.removeValue(forKey: key)
            Self.insert(key, codeID, into: &state, capacity: capacity)
        }
    }

    /// Drops what was remembered for this code and app user (it was no longer a repeat).
    public func forget(codeHash: String, appUserID: String) {
        let key = Key(codeHash: codeHash, appUserID: appUserID)
        generations.withLock { state in
            state.current.removeValue(forKey: key)
            state.previous.removeValue(forKey: key)
        }
    }

    /// How many entries are kept now.
    public var count: Int {
        generations.withLock { $0.current.count + $0.previous.count }
    }

    private static func insert(_ key: Key, _ codeID: String, into state: inout Generations, capacity: Int) {
        if state.current[key] == nil, state.current.count >= capacity / 2 {
            state.previous = state.current
            state.current = [:]
        }
        state.current[key] = codeID
    }
}
