extension PostgresConnection {
    /// Runs `sql` with `$1`, `$2`... bound to `parameters` and returns all its rows.
    /// - Throws: `PostgresError`: `.server` with the SQLSTATE (the connection stays usable),
    ///   `.invalidArgument`, `.decoding`, or `.timeout` / `.connection` (the connection is closed).
    @discardableResult
    public func query(_ sql: String, _ parameters: [PostgresValue] = []) throws -> PostgresResult {
        let outsideTransaction = transactionStatus == .idle && pendingBegin.isEmpty && deferred.isEmpty
        do {
            return try exchange { try extendedQuery(sql, parameters) }
        } catch let error as PostgresError where error.sqlState == "0A000" && outsideTransaction && invalidatedStatement {
            // A table changed under a cached statement ("cached plan must not change result type").
            // Nothing ran, and no transaction was open: prepare it afresh, once.
            return try exchange { try extendedQuery(sql, parameters) }
        }
    }

    /// Runs a query and returns its first row, or nil.
    /// - Throws: as `query`.
    public func queryOne(_ sql: String, _ parameters: [PostgresValue] = []) throws -> PostgresRow? {
        try query(sql, parameters).rows.first
    }

    /// Runs a statement and ignores any rows.
    /// - Throws: as `query`.
    public func execute(_ sql: String, _ parameters: [PostgresValue] = []) throws {
        try query(sql, parameters)
    }

    /// Runs an INSERT, UPDATE, DELETE (or MERGE) and returns how many rows it changed, from the
    /// command tag ("UPDATE 3" is 3).
    /// - Throws: as `query`.
    @discardableResult
    public func run(_ sql: String, _ parameters: [PostgresValue] = []) throws -> Int {
        try query(sql, parameters).rowsAffected
    }

    /// Parse (unless cached), Describe, Bind, Execute, Sync in one write, after the statements
    /// deferred so far (or the pending opening statements of a transaction); then every answer up
    /// to ReadyForQuery, so the session is in step again even after an error.
    private func extendedQuery(_ sql: String, _ parameters: [PostgresValue]) throws -> PostgresResult {
        try checkStatement(sql, parameters)
        invalidatedStatement = false
        var pipeline = takeDeferred()
        let statement = appendStatement(sql, parameters, deferredIndex: nil, to: &pipeline)
        pipeline.statements.append(statement)
        return try send(pipeline)
    }

    /// Decodes a DataRow's text fields by the columns' types.
    func decodeRow(_ fields: [ArraySlice<UInt8>?], columns: PostgresColumns) throws -> PostgresRow {
        guard fields.count == columns.columns.count else {
            throw PostgresError(.protocolViolation, "a row has \(fields.count) fields for \(columns.columns.count) columns")
        }
        var values: [PostgresValue] = []
        values.reserveCapacity(fields.count)
        for (field, column) in zip(fields, columns.columns) {
            guard let field else {
                values.append(.null)
                continue
            }
            values.append(try PostgresValue.decode(field, type: column.typeOID, column: column.name))
        }
        return PostgresRow(columns: columns, values: values)
    }

    /// COPY is not supported: a COPY FROM STDIN is failed (the server then reports an error and
    /// resynchronizes); a COPY TO STDOUT's data is read and dropped.
    func refuseCopy(_ type: UInt8) throws {
        switch type {
        case UInt8(ascii: "G"):
            var fail = FrontendMessages()
            fail.copyFail("this client does not support COPY FROM STDIN")
            try stream.send(fail)
        case UInt8(ascii: "H"), UInt8(ascii: "d"), UInt8(ascii: "c"):
            return
        default:
            throw PostgresError(.protocolViolation, "the server started a COPY BOTH (replication), which this client does not support")
        }
    }
}
