import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The column names of one query result, shared by all of its rows (one allocation per query,
/// not per row; SQLite's prepared statements keep theirs), plus the error counter that typed
/// getters report to.
final class RowLayout: Sendable {
    let names: [String]
    let counter: ErrorCounter
    /// Every name's UTF-8 bytes back to back, and where each one ends: a typed getter finds its
    /// column by length and `memcmp` (String's `==` is slow for unequal names, and hashing
    /// the name costs more than comparing it with a few columns of the same length).
    private let nameBytes: [UInt8]
    private let nameEnds: [Int]
    /// The column after the last one found: decoders mostly read a row in the order its query
    /// selects, so this is tried first. A hint only (shared by the threads reading rows of this
    /// statement; a stale one costs the scan it saves, never a wrong column).
    private let next = Atomic<Int>(0)

    init(names: [String], counter: ErrorCounter) {
        self.names = names
        self.counter = counter
        var bytes: [UInt8] = []
        var ends: [Int] = []
        ends.reserveCapacity(names.count)
        for name in names {
            bytes.append(contentsOf: name.utf8)
            ends.append(bytes.count)
        }
        nameBytes = bytes
        nameEnds = ends
    }

    /// The index of `name`: an exact match first, then SQLite's case-insensitive one.
    func index(of name: String) -> Int? {
        var name = name
        let guess = next.load(ordering: .relaxed)
        let exact = name.withUTF8 { wanted -> Int? in
            nameBytes.withUnsafeBufferPointer { all -> Int? in
                if guess < nameEnds.count {
                    let start = guess == 0 ? 0 : nameEnds[guess - 1]
                    if nameEnds[guess] - start == wanted.count
                        && (wanted.isEmpty || memcmp(all.baseAddress! + start, wanted.baseAddress!, wanted.count) == 0)
                    {
                        return guess
                    }
                }
                var start = 0
                for (index, end) in nameEnds.enumerated() {
                    defer { start = end }
                    guard end - start == wanted.count else { continue }
                    if wanted.isEmpty || memcmp(all.baseAddress! + start, wanted.baseAddress!, wanted.count) == 0 { return index }
                }
                return nil
            }
        }
        if let exact {
            if exact + 1 != guess { next.store(exact + 1, ordering: .relaxed) }
            return exact
        }
        let lowered = name.lowercased()
        return names.firstIndex { $0.lowercased() == lowered }
    }
}
