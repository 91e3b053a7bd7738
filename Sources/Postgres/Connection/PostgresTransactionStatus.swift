/// The transaction status the server reports in every ReadyForQuery.
public enum PostgresTransactionStatus: Sendable, Equatable {
    /// Not in a transaction block.
    case idle
    /// Inside a transaction block.
    case inTransaction
    /// Inside a failed transaction block: every statement is refused until ROLLBACK.
    case failed
}
