/// One closure handed to another thread and run once; running it also lets go of it.
///
/// `@unchecked Sendable`: `body` is read and cleared only by `run()`, on the one thread that runs it.
final class BlockingWork<T>: @unchecked Sendable {
    private var body: (() throws -> T)?

    init(_ body: @escaping () throws -> T) {
        self.body = body
    }

    func run() -> Result<T, any Error> {
        guard let body else { return .failure(StorageError(sqlState: "XX000", message: "a database call ran twice")) }
        self.body = nil
        return Result { try body() }
    }
}
