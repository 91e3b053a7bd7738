extension PostgresConnection {
    /// Runs `sql` with `$1`, `$2`... bound to `parameters` and returns all its rows.
    /// - Throws: `PostgresError`: `.server` with the SQLSTATE (the connection stays usable),
    ///   `.invalidArgument`, `.decoding`, or `.timeout` / `.connection` (the connection is closed).
    @discardableResult
    public func query(_ sql: String, _ parameters: [PostgresValue] = []) throws -> PostgresResult {
        let outsideTransaction = transactionStatus == .idle && pendingBegin.isEmpty
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

    /// Parse (unless cached), Describe, Bind, Execute, Sync in one write, after the pending
    /// opening statements of a transaction (each Parse, Bind, Execute of the unnamed statement);
    /// then every answer up to ReadyForQuery, so the session is in step again even after an error.
    private func extendedQuery(_ sql: String, _ parameters: [PostgresValue]) throws -> PostgresResult {
        guard !sql.utf8.contains(0) else { throw PostgresError(.invalidArgument, "the SQL contains a NUL character") }
        guard parameters.count <= Int(UInt16.max) else {
            throw PostgresError(.invalidArgument, "\(parameters.count) parameters; PostgreSQL takes at most 65535")
        }
        if let large = parameters.firstIndex(where: { $0.wireByteCount >= 1 << 30 }) {
            throw PostgresError(.invalidArgument, "parameter $\(large + 1) is 1 GiB or more (PostgreSQL's limit for one value)")
        }
        invalidatedStatement = false
        let key = StatementCache.Key(sql: sql, parameterTypes: parameters.map(\.parameterType))
        var messages = FrontendMessages()
        for name in pendingCloses { messages.close(statement: name) }
        pendingCloses.removeAll()
        for statement in pendingBegin {
            messages.parse(name: "", sql: statement, parameterTypes: [])
            messages.bind(statement: "", parameters: [])
            messages.execute()
        }
        pendingBegin.removeAll()

        let cached = statements.lookup(key)
        var statementName = cached?.name ?? ""
        var columns = cached?.columns ?? .empty
        var preparing: String?
        if cached == nil {
            if statements.capacity > 0 {
                let reserved = statements.reserveName()
                if let evicted = reserved.evicted { messages.close(statement: evicted) }
                statementName = reserved.name
                preparing = reserved.name
            }
            messages.parse(name: statementName, sql: sql, parameterTypes: key.parameterTypes)
            messages.describe(statement: statementName)
        }
        messages.bind(statement: statementName, parameters: parameters)
        messages.execute()
        messages.sync()
        try stream.send(messages)

        var rows: [PostgresRow] = []
        var tag = ""
        var failure: PostgresServerMessage?
        var described = cached != nil
        while true {
            let message = try stream.receive()
            if handleAsynchronous(message) { continue }
            switch message {
            case .parseComplete, .bindComplete, .closeComplete, .parameterDescription:
                continue
            case .rowDescription(let description):
                columns = PostgresColumns(description)
                described = true
            case .noData:
                columns = .empty
                described = true
            case .dataRow(let fields):
                rows.append(try decodeRow(fields, columns: columns))
            case .commandComplete(let text):
                tag = text
            case .emptyQueryResponse:
                tag = ""
            case .errorResponse(let error):
                failure = failure ?? error
                if error.endsSession { throw PostgresError(.server, error.message, server: error) }
            case .copy(let type):
                try refuseCopy(type)
            case .readyForQuery(let status):
                transactionStatus = status
                if let preparing {
                    if described {
                        statements.insert(key, name: preparing, columns: columns)
                    } else {
                        // Parsed (perhaps) but not described: close it quietly next time.
                        pendingCloses.append(preparing)
                    }
                }
                if let failure {
                    // "cached plan must not change result type": the table changed under a cached
                    // statement; prepare it afresh next time.
                    if failure.code == "0A000", cached != nil, statements.remove(named: statementName) {
                        pendingCloses.append(statementName)
                        invalidatedStatement = true
                    }
                    throw PostgresError(.server, failure.message, server: failure)
                }
                return PostgresResult(columns: columns, rows: rows, commandTag: tag)
            default:
                throw PostgresError(.protocolViolation, "an unexpected message from the server during a query")
            }
        }
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
