/// The named prepared statements of one connection, keyed by SQL text and parameter types, least
/// recently used evicted first. Each entry remembers the statement's columns, so a cached
/// statement runs with Bind/Execute/Sync alone.
struct StatementCache {
    struct Key: Hashable {
        let sql: String
        let parameterTypes: [UInt32]
    }

    struct Entry {
        let name: String
        let columns: PostgresColumns
        var lastUse: UInt64
    }

    let capacity: Int
    private var entries: [Key: Entry] = [:]
    private var clock: UInt64 = 0
    private var nextNumber = 0

    init(capacity: Int) { self.capacity = max(0, capacity) }

    /// How many statements are prepared on the server through this cache.
    var count: Int { entries.count }

    /// The entry for `key`, marked as just used.
    mutating func lookup(_ key: Key) -> Entry? {
        guard var entry = entries[key] else { return nil }
        clock += 1
        entry.lastUse = clock
        entries[key] = entry
        return entry
    }

    /// A fresh statement name, and the name of the statement to close to make room (if full).
    mutating func reserveName() -> (name: String, evicted: String?) {
        nextNumber += 1
        let name = "tg_\(nextNumber)"
        guard entries.count >= capacity, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) else {
            return (name, nil)
        }
        entries[oldest.key] = nil
        return (name, oldest.value.name)
    }

    /// Remembers a statement the server has prepared and described.
    mutating func insert(_ key: Key, name: String, columns: PostgresColumns) {
        clock += 1
        entries[key] = Entry(name: name, columns: columns, lastUse: clock)
    }

    /// Forgets the statement called `name` (the server refused to reuse it); returns whether it was cached.
    @discardableResult
    mutating func remove(named name: String) -> Bool {
        guard let key = entries.first(where: { $0.value.name == name })?.key else { return false }
        entries[key] = nil
        return true
    }

    /// Forgets everything (the connection is gone, so are its statements).
    mutating func removeAll() { entries.removeAll() }
}
