/// The column names of one query result, shared by all of its rows (one allocation per query,
/// not per row), plus the error counter that typed getters report to.
final class RowLayout: Sendable {
    let names: [String]
    let counter: ErrorCounter

    init(names: [String], counter: ErrorCounter) {
        self.names = names
        self.counter = counter
    }

    /// The index of `name`: an exact match first, then SQLite's case-insensitive one.
    func index(of name: String) -> Int? {
        if let exact = names.firstIndex(of: name) { return exact }
        let lowered = name.lowercased()
        return names.firstIndex { $0.lowercased() == lowered }
    }
}
