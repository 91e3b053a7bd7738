/// What an Authentication ('R') message asks for.
enum AuthenticationRequest: Equatable {
    /// AuthenticationOk.
    case ok
    /// AuthenticationCleartextPassword.
    case cleartextPassword
    /// AuthenticationMD5Password with its 4-byte salt.
    case md5Password(salt: [UInt8])
    /// AuthenticationSASL with the mechanisms the server accepts.
    case sasl(mechanisms: [String])
    /// AuthenticationSASLContinue: the server-first message.
    case saslContinue([UInt8])
    /// AuthenticationSASLFinal: the server-final message.
    case saslFinal([UInt8])
    /// Kerberos, GSSAPI, SSPI...: not supported.
    case unsupported(code: Int32)

    init(_ cursor: inout ByteCursor) throws {
        let code = try cursor.int32()
        switch code {
        case 0: self = .ok
        case 3: self = .cleartextPassword
        case 5: self = .md5Password(salt: Array(try cursor.bytes(4)))
        case 10:
            var mechanisms: [String] = []
            while true {
                let name = try cursor.cString()
                if name.isEmpty { break }
                mechanisms.append(name)
            }
            self = .sasl(mechanisms: mechanisms)
        case 11: self = .saslContinue(Array(cursor.rest()))
        case 12: self = .saslFinal(Array(cursor.rest()))
        default: self = .unsupported(code: code)
        }
    }
}
