extension PostgresConnection {
    /// BEGIN.
    /// - Throws: `PostgresError`.
    public func begin() throws {
        _ = try exchange { try simpleQuery("BEGIN") }
    }

    /// COMMIT.
    /// - Throws: `PostgresError`; `.transactionRolledBack` when the transaction had failed, so the
    ///   server rolled it back instead (it answers COMMIT with the tag ROLLBACK, not an error).
    public func commit() throws {
        let tag = try exchange { try simpleQuery("COMMIT") }
        if tag == "ROLLBACK" {
            throw PostgresError(.transactionRolledBack, "COMMIT rolled back: an earlier statement of the transaction failed")
        }
    }

    /// ROLLBACK.
    /// - Throws: `PostgresError`.
    public func rollback() throws {
        _ = try exchange { try simpleQuery("ROLLBACK") }
    }

    /// Runs `body` in a transaction: `begin` (BEGIN, or `beginStatement` such as
    /// `BEGIN ISOLATION LEVEL SERIALIZABLE`), COMMIT when it returns, ROLLBACK when it throws.
    /// - Throws: what `body` throws (after the rollback), or `PostgresError`.
    public func transaction<T>(_ beginStatement: String = "BEGIN", _ body: (PostgresConnection) throws -> T) throws -> T {
        _ = try exchange { try simpleQuery(beginStatement) }
        let value: T
        do {
            value = try body(self)
        } catch {
            if !isClosed, transactionStatus != .idle { try? rollback() }
            throw error
        }
        try commit()
        return value
    }
}
