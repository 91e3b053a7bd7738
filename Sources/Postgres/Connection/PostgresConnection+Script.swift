extension PostgresConnection {
    /// Runs several `;`-separated statements without parameters through the simple query protocol
    /// (migrations). Unless the script has its own BEGIN/COMMIT, the server runs it as one
    /// implicit transaction: an error rolls back every statement of it.
    /// - Throws: `PostgresError` (`.server` with the first error's SQLSTATE; the connection stays usable).
    public func executeScript(_ sql: String) throws {
        try flushPendingBegin()
        _ = try exchange { try simpleQuery(sql) }
    }

    /// Query, then every answer up to ReadyForQuery; returns the last command tag.
    func simpleQuery(_ sql: String) throws -> String {
        guard !sql.utf8.contains(0) else { throw PostgresError(.invalidArgument, "the SQL contains a NUL character") }
        var messages = FrontendMessages()
        for name in pendingCloses { messages.close(statement: name) }
        if !pendingCloses.isEmpty { messages.sync() }
        let closes = pendingCloses.count
        pendingCloses.removeAll()
        messages.query(sql)
        try stream.send(messages)
        roundTrips += 1

        var readyCount = 0
        var tag = ""
        var failure: PostgresServerMessage?
        while true {
            let message = try stream.receive()
            if handleAsynchronous(message) { continue }
            switch message {
            case .closeComplete, .rowDescription, .dataRow, .emptyQueryResponse:
                continue
            case .commandComplete(let text):
                tag = text
            case .errorResponse(let error):
                failure = failure ?? error
                if error.endsSession { throw PostgresError(.server, error.message, server: error) }
            case .copy(let type):
                try refuseCopy(type)
            case .readyForQuery(let status):
                transactionStatus = status
                readyCount += 1
                // The closes' Sync has its own ReadyForQuery before the Query's.
                if closes > 0, readyCount == 1 { continue }
                if let failure { throw PostgresError(.server, failure.message, server: failure) }
                return tag
            default:
                throw PostgresError(.protocolViolation, "an unexpected message from the server during a script")
            }
        }
    }
}
