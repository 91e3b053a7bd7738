import Crypto

/// The client side of SCRAM-SHA-256 (RFC 5802, RFC 7677) as PostgreSQL speaks it: no channel
/// binding (gs2 header `n,,`), an empty user name (the server uses the startup user), and the
/// server's signature checked in constant time before the session is accepted.
struct SCRAMSHA256Client {
    private let password: String
    private let clientNonce: String
    private var clientFirstBare: String { "n=,r=\(clientNonce)" }
    /// The server signature expected in server-final, known once client-final is built.
    private var expectedServerSignature: [UInt8]?

    /// A client with a fresh 18-byte random nonce (libpq's length), or `nonce` in tests.
    /// - Throws: `PostgresError` (`.authentication`) when the random generator fails.
    init(password: String, nonce: String? = nil) throws {
        self.password = password
        if let nonce {
            clientNonce = nonce
        } else {
            do {
                clientNonce = Base64.encode(try SecureRandom.bytes(count: 18))
            } catch {
                throw PostgresError(.authentication, "SCRAM: cannot generate a nonce: \(error)")
            }
        }
    }

    /// client-first-message: the gs2 header and the bare message.
    var clientFirstMessage: [UInt8] { Array("n,,\(clientFirstBare)".utf8) }

    /// Reads server-first-message and returns client-final-message with the proof.
    /// - Throws: `PostgresError` (`.authentication`) for a malformed message, a nonce that does not
    ///   extend ours, or an iteration count out of range.
    mutating func clientFinalMessage(serverFirst: [UInt8]) throws -> [UInt8] {
        let serverFirstText = String(decoding: serverFirst, as: UTF8.self)
        let attributes = try Self.attributes(serverFirstText)
        guard let nonce = attributes["r"], nonce.hasPrefix(clientNonce), nonce.count > clientNonce.count else {
            throw Self.error("the server's nonce does not extend the client's")
        }
        guard let saltText = attributes["s"], let salt = try? Base64.decode(saltText), !salt.isEmpty else {
            throw Self.error("the server sent no valid salt")
        }
        // PostgreSQL uses 4096; a bound keeps a hostile server from making the client spin.
        guard let iterationText = attributes["i"], let iterations = Int(iterationText), (1...10_000_000).contains(iterations) else {
            throw Self.error("the server's iteration count is missing or out of range")
        }
        let withoutProof = "c=biws,r=\(nonce)"  // biws = base64("n,,")
        let authMessage = Array("\(clientFirstBare),\(serverFirstText),\(withoutProof)".utf8)
        do {
            let salted = try KDF.pbkdf2SHA256(
                password: Array(SASLPrep.prepare(password).utf8), salt: salt, iterations: iterations, outputByteCount: 32)
            let clientKey = try HMACSHA256.authenticationCode(for: Array("Client Key".utf8), key: salted)
            let storedKey = try SHA256.hash(clientKey)
            let clientSignature = try HMACSHA256.authenticationCode(for: authMessage, key: storedKey)
            let proof = zip(clientKey, clientSignature).map { $0 ^ $1 }
            let serverKey = try HMACSHA256.authenticationCode(for: Array("Server Key".utf8), key: salted)
            expectedServerSignature = try HMACSHA256.authenticationCode(for: authMessage, key: serverKey)
            return Array("\(withoutProof),p=\(Base64.encode(proof))".utf8)
        } catch let error as CryptoError {
            throw Self.error("computing the proof failed: \(error.message)")
        }
    }

    /// Checks server-final-message: `v=` must be the server signature this exchange expects.
    /// - Throws: `PostgresError` (`.authentication`) when the server reports an error, skips a
    ///   step or cannot prove it knows the password.
    func verify(serverFinal: [UInt8]) throws {
        guard let expected = expectedServerSignature else { throw Self.error("server-final arrived before client-final") }
        let attributes = try Self.attributes(String(decoding: serverFinal, as: UTF8.self))
        if let failure = attributes["e"] { throw Self.error("the server refused: \(failure)") }
        guard let text = attributes["v"], let signature = try? Base64.decode(text) else {
            throw Self.error("server-final carries no verifier")
        }
        guard ConstantTime.equals(signature, expected) else {
            throw Self.error("the server's signature is wrong: it does not know the password (or someone is in between)")
        }
    }

    /// Whether server-final has been verified by `verify` (tracked by the caller).
    var hasSentProof: Bool { expectedServerSignature != nil }

    /// `a=value,b=value`: single-letter names; values may contain '=' (base64) but not ','.
    private static func attributes(_ text: String) throws -> [Character: String] {
        var result: [Character: String] = [:]
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard part.count >= 2, let name = part.first, part.dropFirst().first == "=" else {
                throw error("a malformed attribute in the server's message")
            }
            if name == "m" { throw error("the server requires an extension this client does not know") }
            result[name] = String(part.dropFirst(2))
        }
        return result
    }

    private static func error(_ problem: String) -> PostgresError {
        PostgresError(.authentication, "SCRAM-SHA-256: \(problem)")
    }
}
