/// Builds the bytes of frontend (client-to-server) messages, several per buffer so a whole
/// Parse/Bind/Execute/Sync pipeline goes out in one write.
struct FrontendMessages {
    private(set) var bytes: [UInt8] = []

    /// The protocol version 3.0 number in a StartupMessage.
    static let protocolVersion: Int32 = 196_608
    /// The magic "version" numbers of SSLRequest and CancelRequest.
    static let sslRequestCode: Int32 = 80_877_103
    static let cancelRequestCode: Int32 = 80_877_102

    init() {}

    // MARK: Messages without a type byte (before the session starts)

    /// StartupMessage: the protocol version and `name`/`value` pairs.
    mutating func startup(parameters: [(String, String)]) {
        untyped {
            $0.int32(Self.protocolVersion)
            for (name, value) in parameters {
                $0.cString(name)
                $0.cString(value)
            }
            $0.byte(0)
        }
    }

    /// SSLRequest: asks the server whether it will speak TLS on this connection.
    mutating func sslRequest() { untyped { $0.int32(Self.sslRequestCode) } }

    /// CancelRequest, sent on a connection of its own.
    mutating func cancelRequest(processID: Int32, secretKey: Int32) {
        untyped {
            $0.int32(Self.cancelRequestCode)
            $0.int32(processID)
            $0.int32(secretKey)
        }
    }

    // MARK: Typed messages

    /// PasswordMessage with a cleartext or md5-hashed password.
    mutating func password(_ text: String) { typed("p") { $0.cString(text) } }

    /// SASLInitialResponse: the chosen mechanism and the client-first message.
    mutating func saslInitialResponse(mechanism: String, data: [UInt8]) {
        typed("p") {
            $0.cString(mechanism)
            $0.int32(Int32(data.count))
            $0.bytes(data)
        }
    }

    /// SASLResponse: the client-final message.
    mutating func saslResponse(_ data: [UInt8]) { typed("p") { $0.bytes(data) } }

    /// Parse: prepares `sql` as statement `name` ("" is the unnamed statement) with parameter types.
    mutating func parse(name: String, sql: String, parameterTypes: [UInt32]) {
        typed("P") {
            $0.cString(name)
            $0.cString(sql)
            $0.int16(Int16(truncatingIfNeeded: parameterTypes.count))
            for type in parameterTypes { $0.int32(Int32(bitPattern: type)) }
        }
    }

    /// Bind: the unnamed portal over `statement`, each parameter in its own format, every result
    /// column as text.
    mutating func bind(statement: String, parameters: [PostgresValue]) {
        typed("B") {
            $0.cString("")
            $0.cString(statement)
            $0.int16(Int16(truncatingIfNeeded: parameters.count))
            for parameter in parameters { $0.int16(parameter.wireFormat) }
            $0.int16(Int16(truncatingIfNeeded: parameters.count))
            for parameter in parameters { parameter.encode(into: &$0) }
            $0.int16(0)  // no result format codes: all text
        }
    }

    /// Describe of a statement (`S`) or portal (`P`).
    mutating func describe(statement name: String) {
        typed("D") {
            $0.byte(UInt8(ascii: "S"))
            $0.cString(name)
        }
    }

    /// Execute of the unnamed portal, all rows.
    mutating func execute() {
        typed("E") {
            $0.cString("")
            $0.int32(0)
        }
    }

    /// Close of a named statement.
    mutating func close(statement name: String) {
        typed("C") {
            $0.byte(UInt8(ascii: "S"))
            $0.cString(name)
        }
    }

    /// Sync: ends the extended-query pipeline; the server answers ReadyForQuery.
    mutating func sync() { typed("S") { _ in } }

    /// Query: the simple query protocol (several `;`-separated statements allowed).
    mutating func query(_ sql: String) { typed("Q") { $0.cString(sql) } }

    /// CopyFail: refuses a COPY FROM STDIN the server started (this client does not stream COPY).
    mutating func copyFail(_ reason: String) { typed("f") { $0.cString(reason) } }

    /// Terminate: the polite goodbye before closing the socket.
    mutating func terminate() { typed("X") { _ in } }

    // MARK: Primitives

    private mutating func typed(_ type: Character, _ body: (inout FrontendMessages) -> Void) {
        bytes.append(type.asciiValue!)
        untyped(body)
    }

    /// A length-prefixed body: the Int32 length counts itself and the body, not the type byte.
    private mutating func untyped(_ body: (inout FrontendMessages) -> Void) {
        let start = bytes.count
        int32(0)
        body(&self)
        let length = Int32(truncatingIfNeeded: bytes.count - start)
        withUnsafeBytes(of: length.bigEndian) { raw in
            for (offset, byte) in raw.enumerated() { bytes[start + offset] = byte }
        }
    }

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func int16(_ value: Int16) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func int32(_ value: Int32) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func int64(_ value: Int64) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func bytes(_ data: [UInt8]) { bytes.append(contentsOf: data) }

    mutating func bytes(_ text: String.UTF8View) { bytes.append(contentsOf: text) }

    /// A NUL-terminated string. The caller has checked it holds no NUL (`PostgresConnection` does for SQL).
    mutating func cString(_ text: String) {
        bytes.append(contentsOf: text.utf8)
        bytes.append(0)
    }
}
