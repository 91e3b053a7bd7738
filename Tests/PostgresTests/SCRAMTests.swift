import Crypto
import Testing
@testable import Postgres

/// SCRAM-SHA-256 against RFC 7677's example exchange, and the md5 answer against a known value.
@Suite struct SCRAMTests {
    // RFC 7677 §3 (user "user", password "pencil"); PostgreSQL sends an empty n= instead of the
    // user name, which changes client-first-bare and so the proof, so the RFC's own bytes are
    // checked through the same primitives first, then the client's state machine end to end.
    let clientNonce = "rOprNGfwEbeRWgbNEkqO"
    let serverFirst = "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"

    @Test func rfc7677VectorThroughThePrimitives() throws {
        let salted = try KDF.pbkdf2SHA256(
            password: Array("pencil".utf8), salt: try Base64.decode("W22ZaJ0SNY7soEsUEjb6gQ=="), iterations: 4096, outputByteCount: 32)
        let authMessage = Array(("n=user,r=\(clientNonce),\(serverFirst),c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0").utf8)
        let clientKey = try HMACSHA256.authenticationCode(for: Array("Client Key".utf8), key: salted)
        let signature = try HMACSHA256.authenticationCode(for: authMessage, key: try SHA256.hash(clientKey))
        let proof = zip(clientKey, signature).map { $0 ^ $1 }
        #expect(Base64.encode(proof) == "dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
        let serverKey = try HMACSHA256.authenticationCode(for: Array("Server Key".utf8), key: salted)
        let serverSignature = try HMACSHA256.authenticationCode(for: authMessage, key: serverKey)
        #expect(Base64.encode(serverSignature) == "6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")
    }

    @Test func clientStateMachineAcceptsTheRightServerAndRefusesAForgery() throws {
        var client = try SCRAMSHA256Client(password: "pencil", nonce: clientNonce)
        #expect(String(decoding: client.clientFirstMessage, as: UTF8.self) == "n,,n=,r=\(clientNonce)")
        let final = String(decoding: try client.clientFinalMessage(serverFirst: Array(serverFirst.utf8)), as: UTF8.self)
        #expect(final.hasPrefix("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p="))

        // The server's side of the same exchange, computed independently.
        let salted = try KDF.pbkdf2SHA256(
            password: Array("pencil".utf8), salt: try Base64.decode("W22ZaJ0SNY7soEsUEjb6gQ=="), iterations: 4096, outputByteCount: 32)
        let withoutProof = String(final[..<final.range(of: ",p=")!.lowerBound])
        let authMessage = Array("n=,r=\(clientNonce),\(serverFirst),\(withoutProof)".utf8)
        let serverKey = try HMACSHA256.authenticationCode(for: Array("Server Key".utf8), key: salted)
        let good = "v=" + Base64.encode(try HMACSHA256.authenticationCode(for: authMessage, key: serverKey))
        try client.verify(serverFinal: Array(good.utf8))

        let forged = "v=" + Base64.encode([UInt8](repeating: 7, count: 32))
        let error = #expect(throws: PostgresError.self) { try client.verify(serverFinal: Array(forged.utf8)) }
        #expect(error?.kind == .authentication)
        let refused = #expect(throws: PostgresError.self) { try client.verify(serverFinal: Array("e=invalid-proof".utf8)) }
        #expect(refused?.message.contains("invalid-proof") == true)
    }

    @Test(arguments: [
        "r=someoneElsesNonce,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",  // does not extend ours
        "r=rOprNGfwEbeRWgbNEkqO,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",  // does not add to it
        "r=rOprNGfwEbeRWgbNEkqOxyz,s=!!!,i=4096",  // bad salt
        "r=rOprNGfwEbeRWgbNEkqOxyz,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=0",  // bad iteration count
        "m=ext,r=rOprNGfwEbeRWgbNEkqOxyz,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",  // mandatory extension
        "garbage"
    ])
    func malformedServerFirstMessagesAreRefused(serverFirst: String) throws {
        var client = try SCRAMSHA256Client(password: "pencil", nonce: clientNonce)
        let error = #expect(throws: PostgresError.self) { try client.clientFinalMessage(serverFirst: Array(serverFirst.utf8)) }
        #expect(error?.kind == .authentication)
    }

    @Test func md5AnswerMatchesPostgresFormula() throws {
        // md5(md5("secret" + "alice") hex + salt) for salt 01 02 03 04, computed with Python's hashlib.
        let answer = try MD5Password.answer(user: "alice", password: "secret", salt: [1, 2, 3, 4])
        #expect(answer == "md598a0412b9c31436fc53776e863350083")
        #expect(
            try MD5.hash(Array("".utf8)) == [
                0xd4, 0x1d, 0x8c, 0xd9, 0x8f, 0x00, 0xb2, 0x04, 0xe9, 0x80, 0x09, 0x98, 0xec, 0xf8, 0x42, 0x7e
            ])
    }

    @Test func saslPrepLeavesASCIIAndNormalizesUnicode() {
        #expect(SASLPrep.prepare("pencil") == "pencil")
        #expect(SASLPrep.prepare("a\u{00A0}b") == "a b")
        #expect(SASLPrep.prepare("a\u{00AD}b") == "ab")
        #expect(SASLPrep.prepare("\u{2168}") == "IX")  // ROMAN NUMERAL NINE, RFC 4013's example
        #expect(SASLPrep.prepare("e\u{0301}") == "\u{00E9}")
    }
}
