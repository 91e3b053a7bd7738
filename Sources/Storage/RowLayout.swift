/// The column names of one query result, shared by all of its rows (one allocation per query,
/// not per row; SQLite's prepared statements keep theirs), plus the error counter that typed
/// getters report to.
final class RowLayout: Sendable {
    let names: [String]
    let counter: ErrorCounter
    /// Each name's first position: a typed getter finds its column with one hash lookup instead
    /// of comparing its name with every column's (String's `==` is slow for unequal names).
    private let positions: [String: Int]

    init(names: [String], counter: ErrorCounter) {
        self.names = names
        self.counter = counter
        var positions: [String: Int] = [:]
        positions.reserveCapacity(names.count)
        for (index, name) in names.enumerated() where positions[name] == nil { positions[name] = index }
        self.positions = positions
    }

    /// The index of `name`: an exact match first, then SQLite's case-insensitive one.
    func index(of name: String) -> Int? {
        if let exact = positions[name] { return exact }
        let lowered = name.lowercased()
        return names.firstIndex { $0.lowercased() == lowered }
    }
}
