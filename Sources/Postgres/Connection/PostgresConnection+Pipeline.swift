extension PostgresConnection {
    /// Queues a statement whose outcome the caller does not read (an UPDATE, an INSERT, a lock
    /// function) and returns at once: its Parse (unless cached), Bind and Execute go out with the
    /// next statement that needs an answer, or with COMMIT, before their one Sync. The server runs
    /// the statements in order; when a deferred one fails, the ones after it are skipped and the
    /// flushing statement (or `commit`) throws its error, with `deferredStatement` saying which
    /// one it was. `rollback` drops what was never sent. Prepared statements are reused as by
    /// `query`.
    /// - Throws: `PostgresError` now only for what the client refuses (`.invalidArgument`) or a
    ///   closed connection.
    public func executeDeferred(_ sql: String, _ parameters: [PostgresValue] = []) throws {
        try checkOpen()
        try checkStatement(sql, parameters)
        var pipeline = takeDeferred()
        let statement = appendStatement(sql, parameters, deferredIndex: pipeline.deferredCount, to: &pipeline)
        pipeline.statements.append(statement)
        deferred = pipeline
    }

    /// Queues a claim: a statement that must change a row, such as an INSERT of a key with `ON
    /// CONFLICT DO NOTHING`. It goes out as `executeDeferred`'s statements do; when it changed no
    /// row (the key was taken), the statement that sent it throws `.claimRefused` once the
    /// session is in step, with `deferredStatement` naming it, and the caller goes no further
    /// than that statement. COMMIT never rides with a claim (`commit` sends it first), so a
    /// transaction whose claim was refused commits nothing.
    /// - Throws: as `executeDeferred`.
    public func executeDeferredClaim(_ sql: String, _ parameters: [PostgresValue] = []) throws {
        try executeDeferred(sql, parameters)
        deferred.statements[deferred.statements.count - 1].claims = true
    }

    /// Whether statements are queued by `executeDeferred` and not sent yet.
    public var hasDeferredStatements: Bool { !deferred.isEmpty }

    /// Refuses what PostgreSQL would refuse anyway, before anything is queued.
    func checkStatement(_ sql: String, _ parameters: [PostgresValue]) throws {
        guard !sql.utf8.contains(0) else { throw PostgresError(.invalidArgument, "the SQL contains a NUL character") }
        guard parameters.count <= Int(UInt16.max) else {
            throw PostgresError(.invalidArgument, "\(parameters.count) parameters; PostgreSQL takes at most 65535")
        }
        if let large = parameters.firstIndex(where: { $0.wireByteCount >= 1 << 30 }) {
            throw PostgresError(.invalidArgument, "parameter $\(large + 1) is 1 GiB or more (PostgreSQL's limit for one value)")
        }
    }

    /// The deferred statements, taken off the connection; when there are none, a new pipeline
    /// that starts with the statements to close and the transaction's pending opening statements.
    func takeDeferred() -> DeferredPipeline {
        var pipeline = deferred
        deferred = DeferredPipeline()
        guard pipeline.isEmpty else { return pipeline }
        pipeline = DeferredPipeline()
        for name in pendingCloses { pipeline.messages.close(statement: name) }
        pendingCloses.removeAll()
        for statement in pendingBegin {
            pipeline.messages.parse(name: "", sql: statement, parameterTypes: [])
            pipeline.messages.bind(statement: "", parameters: [])
            pipeline.messages.execute()
            pipeline.statements.append(
                PipelinedStatement(
                    key: nil, name: "", cached: false, preparing: nil, evicted: nil, deferredIndex: nil, columns: .empty, described: true))
        }
        pipeline.holdsBegin = !pendingBegin.isEmpty
        pendingBegin.removeAll()
        return pipeline
    }

    /// Appends one statement's Parse (and Describe) unless cached, Bind and Execute. A statement
    /// already being prepared earlier in the same pipeline runs as the unnamed statement (it is
    /// cached once, by the first).
    func appendStatement(
        _ sql: String, _ parameters: [PostgresValue], deferredIndex: Int?, to pipeline: inout DeferredPipeline
    ) -> PipelinedStatement {
        let key = StatementCache.Key(sql: sql, parameterTypes: parameters.map(\.parameterType))
        let cached = statements.lookup(key)
        var name = cached?.name ?? ""
        var preparing: String?
        var evicted: String?
        if cached == nil {
            let preparedHere = pipeline.statements.contains { $0.key == key && $0.preparing != nil }
            if statements.capacity > 0, !preparedHere {
                let reserved = statements.reserveName()
                if let old = reserved.evicted { pipeline.messages.close(statement: old) }
                evicted = reserved.evicted
                name = reserved.name
                preparing = reserved.name
            }
            pipeline.messages.parse(name: name, sql: sql, parameterTypes: key.parameterTypes)
            pipeline.messages.describe(statement: name)
        }
        pipeline.messages.bind(statement: name, parameters: parameters)
        pipeline.messages.execute()
        return PipelinedStatement(
            key: key, name: name, cached: cached != nil, preparing: preparing, evicted: evicted, deferredIndex: deferredIndex,
            columns: cached?.columns ?? .empty, described: cached != nil)
    }

    /// Drops the deferred statements unsent (a rollback, a broken connection): statements evicted
    /// from the cache for them are closed with the next pipeline. Returns whether the
    /// transaction's opening statements were among them (then nothing reached the server).
    @discardableResult
    func discardDeferred() -> Bool {
        let pipeline = deferred
        deferred = DeferredPipeline()
        pendingCloses += pipeline.statements.compactMap(\.evicted)
        return pipeline.holdsBegin
    }

    /// Sends the pipeline followed by `statement` (one without parameters or rows, such as
    /// COMMIT: run as the unnamed statement, not described) before the same Sync.
    func send(_ pipeline: DeferredPipeline, then statement: String) throws -> PostgresResult {
        var pipeline = pipeline
        pipeline.messages.parse(name: "", sql: statement, parameterTypes: [])
        pipeline.messages.bind(statement: "", parameters: [])
        pipeline.messages.execute()
        pipeline.statements.append(
            PipelinedStatement(
                key: nil, name: "", cached: false, preparing: nil, evicted: nil, deferredIndex: nil, columns: .empty, described: true))
        return try send(pipeline)
    }

    /// Sends the pipeline with one Sync and reads every answer up to ReadyForQuery; returns the
    /// last statement's result. The first error throws once the session is in step again, as
    /// `.server` with `deferredStatement` set when a deferred statement met it.
    func send(_ pipeline: DeferredPipeline) throws -> PostgresResult {
        var pipeline = pipeline
        pipeline.messages.sync()
        try stream.send(pipeline.messages)
        roundTrips += 1

        var statements = pipeline.statements
        var current = 0
        var rows: [PostgresRow] = []
        var tag = ""
        var failure: (message: PostgresServerMessage, index: Int)?
        var refusedClaim: Int?
        while true {
            let message = try stream.receive()
            if handleAsynchronous(message) { continue }
            switch message {
            case .parseComplete, .bindComplete, .closeComplete, .parameterDescription:
                continue
            case .rowDescription(let description) where current < statements.count:
                statements[current].columns = PostgresColumns(description)
                statements[current].described = true
            case .noData where current < statements.count:
                statements[current].columns = .empty
                statements[current].described = true
            case .dataRow(let fields) where current == statements.count - 1:
                rows.append(try decodeRow(fields, columns: statements[current].columns))
            case .dataRow:
                continue  // a deferred statement's rows: not read
            case .commandComplete(let text):
                if current == statements.count - 1 { tag = text }
                if statements[current].claims, refusedClaim == nil, PostgresResult.rowCount(in: text) == 0 { refusedClaim = current }
                current += 1
            case .emptyQueryResponse:
                current += 1
            case .errorResponse(let error):
                if failure == nil { failure = (error, current) }
                if error.endsSession { throw PostgresError(.server, error.message, server: error) }
            case .copy(let type):
                try refuseCopy(type)
            case .readyForQuery(let status):
                transactionStatus = status
                try settle(statements, failure: failure)
                if let refusedClaim {
                    throw PostgresError(
                        .claimRefused, "a claim changed no row: its key was taken", deferredStatement: statements[refusedClaim].deferredIndex)
                }
                let last = statements[statements.count - 1]
                return PostgresResult(columns: last.columns, rows: rows, commandTag: tag)
            default:
                throw PostgresError(.protocolViolation, "an unexpected message from the server during a query")
            }
        }
    }

    /// After a pipeline's ReadyForQuery: caches what was prepared and described, closes what was
    /// parsed but not described, and throws the pipeline's error.
    private func settle(_ sent: [PipelinedStatement], failure: (message: PostgresServerMessage, index: Int)?) throws {
        for statement in sent {
            guard let preparing = statement.preparing, let key = statement.key else { continue }
            if statement.described {
                statements.insert(key, name: preparing, columns: statement.columns)
            } else {
                // Parsed (perhaps) but not described: close it quietly next time.
                pendingCloses.append(preparing)
            }
        }
        guard let failure else { return }
        // After an error the server skipped the rest, Closes of evicted statements included.
        pendingCloses += sent[failure.index...].compactMap(\.evicted)
        let failed = failure.index < sent.count ? sent[failure.index] : nil
        // "cached plan must not change result type": the table changed under a cached statement;
        // prepare it afresh next time.
        if failure.message.code == "0A000", let failed, failed.cached, statements.remove(named: failed.name) {
            pendingCloses.append(failed.name)
            invalidatedStatement = true
        }
        throw PostgresError(.server, failure.message.message, server: failure.message, deferredStatement: failed?.deferredIndex)
    }
}
