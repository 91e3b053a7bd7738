extension PostgresConnection {
    /// BEGIN.
    /// - Throws: `PostgresError`.
    public func begin() throws {
        _ = try exchange { try simpleQuery("BEGIN") }
    }

    /// COMMIT: with the deferred statements (`executeDeferred`), in the same write and before the
    /// same Sync, when there are any.
    /// - Throws: `PostgresError`; `.transactionRolledBack` when the transaction had failed, so the
    ///   server rolled it back instead (it answers COMMIT with the tag ROLLBACK, not an error);
    ///   `.server` with `deferredStatement` when a deferred statement failed, `.claimRefused` when a
    ///   claim changed no row (nothing committed, the transaction rolled back).
    public func commit() throws {
        let tag: String
        if deferred.holdsClaim {
            // A claim is answered before COMMIT is sent: refused, nothing of the transaction is kept.
            do {
                _ = try exchange { try send(takeDeferred()) }
            } catch let error as PostgresError where error.kind == .server || error.kind == .claimRefused {
                if !isClosed, transactionStatus != .idle { _ = try? exchange { try simpleQuery("ROLLBACK") } }
                throw error
            }
        }
        if deferred.isEmpty {
            tag = try exchange { try simpleQuery("COMMIT") }
        } else {
            do {
                tag = try exchange { try send(takeDeferred(), then: "COMMIT").commandTag }
            } catch let error as PostgresError where error.kind == .server {
                // A deferred statement failed, so the server skipped COMMIT: end the transaction.
                if !isClosed, transactionStatus != .idle { _ = try? exchange { try simpleQuery("ROLLBACK") } }
                throw error
            }
        }
        if tag == "ROLLBACK" {
            throw PostgresError(.transactionRolledBack, "COMMIT rolled back: an earlier statement of the transaction failed")
        }
    }

    /// ROLLBACK. Deferred statements not sent yet are dropped; when the transaction's opening
    /// statements were among them, nothing is sent at all.
    /// - Throws: `PostgresError`.
    public func rollback() throws {
        if discardDeferred() { return }
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

    /// Runs `body` in a transaction whose opening statements (`BEGIN ISOLATION LEVEL ...`,
    /// `SET LOCAL ...`, each one statement without parameters that returns no rows: they are not
    /// described) cost no round trip of their own:
    /// they are sent with the body's first statement, in the same write and before the same Sync,
    /// so an error in them skips that statement and is reported by it. COMMIT when `body` returns,
    /// ROLLBACK when it throws; a body that ran no statement sends nothing at all.
    /// - Throws: what `body` throws (after the rollback), or `PostgresError`.
    public func transaction<T>(pipelining beginStatements: [String], _ body: (PostgresConnection) throws -> T) throws -> T {
        precondition(!beginStatements.isEmpty && transactionStatus == .idle && pendingBegin.isEmpty, "a transaction is already open")
        pendingBegin = beginStatements
        let value: T
        do {
            value = try body(self)
        } catch {
            let heldBegin = discardDeferred()
            let sent = pendingBegin.isEmpty && !heldBegin
            pendingBegin = []
            if sent, !isClosed, transactionStatus != .idle { try? rollback() }
            throw error
        }
        guard pendingBegin.isEmpty else {
            pendingBegin = []
            return value
        }
        try commit()
        return value
    }

    /// Sends the deferred statements, or else the pending opening statements, on their own
    /// (before a script, which the simple protocol runs and cannot share a Sync with).
    func flushPendingBegin() throws {
        if !deferred.isEmpty {
            _ = try exchange { try send(takeDeferred()) }
            return
        }
        guard !pendingBegin.isEmpty else { return }
        let statements = pendingBegin
        pendingBegin = []
        _ = try exchange { try simpleQuery(statements.joined(separator: "; ")) }
    }
}
