#if canImport(Glibc)
    import Glibc
#endif

/// The column names of one query result, shared by all of its rows (one allocation per query,
/// not per row; SQLite's prepared statements keep theirs), plus the error counter that typed
/// getters report to.
final class RowLayout: Sendable {
    let names: [String]
    let counter: ErrorCounter
    /// Every name's UTF-8 bytes back to back, and where each one ends: a candidate column is
    /// confirmed by length and `memcmp` (String's `==` is slow for unequal names).
    private let nameBytes: [UInt8]
    private let nameEnds: [Int]
    /// An open-addressed table from a name's length and first and last bytes to its column
    /// (index + 1; 0 is empty), at most half full: a lookup probes a slot or two, in whatever
    /// order a decoder reads the row (a scan of 40 columns read out of order passed half of them
    /// each time; Swift's `Hasher` over the whole name would cost more than that scan).
    private let slots: [Int32]

    init(names: [String], counter: ErrorCounter) {
        self.names = names
        self.counter = counter
        var bytes: [UInt8] = []
        var ends: [Int] = []
        ends.reserveCapacity(names.count)
        var size = 8
        while size < names.count * 2 { size *= 2 }
        var slots = [Int32](repeating: 0, count: size)
        for (index, name) in names.enumerated() {
            let start = bytes.count
            bytes.append(contentsOf: name.utf8)
            ends.append(bytes.count)
            // Columns are placed in order, so of two with one name the first is found.
            var slot = bytes.withUnsafeBufferPointer { Self.slot(of: UnsafeBufferPointer(rebasing: $0[start...]), mask: size - 1) }
            while slots[slot] != 0 { slot = (slot + 1) & (size - 1) }
            slots[slot] = Int32(index + 1)
        }
        nameBytes = bytes
        nameEnds = ends
        self.slots = slots
    }

    /// Where a name's probe starts.
    @inline(__always)
    private static func slot(of name: UnsafeBufferPointer<UInt8>, mask: Int) -> Int {
        guard let first = name.first, let last = name.last else { return 0 }
        return (name.count &* 0x9E37 ^ Int(first) &* 31 ^ Int(last) &* 0x3B) & mask
    }

    /// The index of `name`: an exact match first, then SQLite's case-insensitive one.
    func index(of name: String) -> Int? {
        // Read in place (a column name is a native string); copying it to call `withUTF8` would
        // cost a retain and a release per lookup.
        let exact: Int?
        if let found = name.utf8.withContiguousStorageIfAvailable({ exactIndex(of: $0) }) {
            exact = found
        } else {
            var name = name
            exact = name.withUTF8 { exactIndex(of: $0) }
        }
        if let exact { return exact }
        let lowered = name.lowercased()
        return names.firstIndex { $0.lowercased() == lowered }
    }

    /// The first column whose name is exactly `wanted`.
    private func exactIndex(of wanted: UnsafeBufferPointer<UInt8>) -> Int? {
        nameBytes.withUnsafeBufferPointer { all -> Int? in
            nameEnds.withUnsafeBufferPointer { ends -> Int? in
                slots.withUnsafeBufferPointer { slots -> Int? in
                    let mask = slots.count - 1
                    var slot = Self.slot(of: wanted, mask: mask)
                    while slots[slot] != 0 {
                        let index = Int(slots[slot]) - 1
                        let start = index == 0 ? 0 : ends[index - 1]
                        if ends[index] - start == wanted.count
                            && (wanted.isEmpty || memcmp(all.baseAddress! + start, wanted.baseAddress!, wanted.count) == 0)
                        {
                            return index
                        }
                        slot = (slot + 1) & mask
                    }
                    return nil
                }
            }
        }
    }
}
