/// A backend (server-to-client) message, parsed from its type byte and body.
enum BackendMessage {
    /// 'R': a step of authentication.
    case authentication(AuthenticationRequest)
    /// 'S': a run-time parameter's current value (server_version, TimeZone...).
    case parameterStatus(name: String, value: String)
    /// 'K': what a CancelRequest for this session must carry.
    case backendKeyData(processID: Int32, secretKey: Int32)
    /// 'Z': the server is ready for the next query, in this transaction status.
    case readyForQuery(PostgresTransactionStatus)
    /// 'T': the columns of the rows that follow.
    case rowDescription([PostgresColumn])
    /// 'D': one row, each field's text bytes or nil for NULL.
    case dataRow([ArraySlice<UInt8>?])
    /// 'C': a statement finished; its tag.
    case commandComplete(String)
    /// 'I': the query string was empty.
    case emptyQueryResponse
    /// 'E': an error.
    case errorResponse(PostgresServerMessage)
    /// 'N': a notice (warning, info).
    case noticeResponse(PostgresServerMessage)
    /// '1', '2', '3': Parse, Bind, Close done.
    case parseComplete, bindComplete, closeComplete
    /// 'n': the statement returns no rows.
    case noData
    /// 't': the statement's parameter types.
    case parameterDescription
    /// 's': Execute stopped at its row limit (never asked for here).
    case portalSuspended
    /// 'A': a NOTIFY (ignored: this client does not LISTEN).
    case notification
    /// 'G', 'H', 'W', 'd', 'c': COPY, which this client does not support.
    case copy(UInt8)
    /// 'v': the server offers a lower minor protocol version or refuses options.
    case negotiateProtocolVersion

    /// Parses one message.
    /// - Throws: `PostgresError` (`.protocolViolation`) for an unknown type or a malformed body.
    static func parse(type: UInt8, body: [UInt8]) throws -> BackendMessage {
        var cursor = ByteCursor(body)
        switch type {
        case UInt8(ascii: "R"): return .authentication(try AuthenticationRequest(&cursor))
        case UInt8(ascii: "S"): return .parameterStatus(name: try cursor.cString(), value: try cursor.cString())
        case UInt8(ascii: "K"): return .backendKeyData(processID: try cursor.int32(), secretKey: try cursor.int32())
        case UInt8(ascii: "Z"):
            switch try cursor.byte() {
            case UInt8(ascii: "I"): return .readyForQuery(.idle)
            case UInt8(ascii: "T"): return .readyForQuery(.inTransaction)
            case UInt8(ascii: "E"): return .readyForQuery(.failed)
            default: throw PostgresError(.protocolViolation, "ReadyForQuery carries an unknown transaction status")
            }
        case UInt8(ascii: "T"):
            let count = Int(try cursor.int16())
            var columns: [PostgresColumn] = []
            columns.reserveCapacity(count)
            for _ in 0..<max(0, count) {
                let name = try cursor.cString()
                _ = try cursor.int32()  // table OID
                _ = try cursor.int16()  // column number
                let type = UInt32(bitPattern: try cursor.int32())
                _ = try cursor.int16()  // type size
                _ = try cursor.int32()  // type modifier
                _ = try cursor.int16()  // format code
                columns.append(PostgresColumn(name: name, typeOID: type))
            }
            return .rowDescription(columns)
        case UInt8(ascii: "D"):
            let count = Int(try cursor.int16())
            var fields: [ArraySlice<UInt8>?] = []
            fields.reserveCapacity(count)
            for _ in 0..<max(0, count) {
                let length = Int(try cursor.int32())
                fields.append(length < 0 ? nil : try cursor.bytes(length))
            }
            return .dataRow(fields)
        case UInt8(ascii: "C"): return .commandComplete(try cursor.cString())
        case UInt8(ascii: "I"): return .emptyQueryResponse
        case UInt8(ascii: "E"): return .errorResponse(try serverMessage(&cursor))
        case UInt8(ascii: "N"): return .noticeResponse(try serverMessage(&cursor))
        case UInt8(ascii: "1"): return .parseComplete
        case UInt8(ascii: "2"): return .bindComplete
        case UInt8(ascii: "3"): return .closeComplete
        case UInt8(ascii: "n"): return .noData
        case UInt8(ascii: "t"): return .parameterDescription
        case UInt8(ascii: "s"): return .portalSuspended
        case UInt8(ascii: "A"): return .notification
        case UInt8(ascii: "v"): return .negotiateProtocolVersion
        case UInt8(ascii: "G"), UInt8(ascii: "H"), UInt8(ascii: "W"), UInt8(ascii: "d"), UInt8(ascii: "c"): return .copy(type)
        default:
            throw PostgresError(.protocolViolation, "unknown backend message type 0x\(String(type, radix: 16))")
        }
    }

    /// The `(field type, cstring)` pairs of ErrorResponse and NoticeResponse, ended by a 0 byte.
    private static func serverMessage(_ cursor: inout ByteCursor) throws -> PostgresServerMessage {
        var fields: [UInt8: String] = [:]
        while true {
            let code = try cursor.byte()
            if code == 0 { break }
            fields[code] = try cursor.cString()
        }
        return PostgresServerMessage(fields: fields)
    }
}
