/// One statement sent in an extended-protocol pipeline (Parse?, Describe?, Bind, Execute) whose
/// answers are still to be read, in order, up to the pipeline's ReadyForQuery.
struct PipelinedStatement {
    /// The cache key; nil for a transaction's opening statements (unnamed, never described).
    let key: StatementCache.Key?
    /// The prepared statement's name ("" for the unnamed one).
    let name: String
    /// Whether it ran as a statement already in the cache.
    let cached: Bool
    /// The name it is being prepared under, to cache once described.
    let preparing: String?
    /// The statement evicted from the cache to make room for this one (closed in the same write).
    let evicted: String?
    /// Its position among the deferred statements of the pipeline; nil for the statement that
    /// flushes them (or an opening statement).
    let deferredIndex: Int?
    /// Its result columns: the cache's, or those its Describe returns.
    var columns: PostgresColumns
    /// Whether the server described it (RowDescription or NoData came).
    var described: Bool
    /// A claim: a statement that must change a row (`executeDeferredClaim`).
    var claims = false
}

/// Statements queued on a connection but not sent yet (`PostgresConnection.executeDeferred`):
/// their messages, without a Sync, and what to expect of each.
struct DeferredPipeline {
    var messages = FrontendMessages()
    var statements: [PipelinedStatement] = []
    /// Whether the transaction's opening statements are among them (nothing reached the server yet).
    var holdsBegin = false

    var isEmpty: Bool { statements.isEmpty }
    /// Whether a claim is among them: COMMIT must not ride with it.
    var holdsClaim: Bool { statements.contains { $0.claims } }
    /// How many of the statements were deferred by the caller (not opening statements).
    var deferredCount: Int { statements.count { $0.deferredIndex != nil } }
}
