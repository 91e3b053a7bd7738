/// The columns of a result, shared by all its rows, with a name-to-position index.
public final class PostgresColumns: Sendable {
    /// The columns, in order.
    public let columns: [PostgresColumn]
    /// The first position of each name.
    private let positions: [String: Int]

    init(_ columns: [PostgresColumn]) {
        self.columns = columns
        var positions: [String: Int] = [:]
        for (index, column) in columns.enumerated() where positions[column.name] == nil {
            positions[column.name] = index
        }
        self.positions = positions
    }

    /// The column names, in order.
    public var names: [String] { columns.map(\.name) }

    /// The position of the first column called `name`.
    public func index(of name: String) -> Int? { positions[name] }

    static let empty = PostgresColumns([])
}
