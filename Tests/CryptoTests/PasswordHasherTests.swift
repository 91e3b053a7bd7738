import Crypto
import Foundation
import Testing

@Suite struct PasswordHasherTests {
    let fast = PasswordHasher(parameters: .init(logN: 4, r: 8, p: 1))

    @Test func hashesVerifyAndAreSaltedSelfDescribingStrings() throws {
        let stored = try fast.hash(password: "correct horse battery staple")
        #expect(stored.hasPrefix("$scrypt$ln=4,r=8,p=1$"))
        #expect(stored.split(separator: "$").count == 4)
        #expect(try fast.verify(password: "correct horse battery staple", against: stored))
        #expect(try !fast.verify(password: "correct horse battery stapl", against: stored))
        #expect(try fast.hash(password: "correct horse battery staple") != stored)
        // A hasher with other defaults still verifies, because the string carries its parameters.
        #expect(try PasswordHasher().verify(password: "correct horse battery staple", against: stored))
    }

    @Test func verifiesAStringBuiltFromAnIndependentScryptDerivation() throws {
        let salt = Array("NaClNaCl".utf8)
        let derived = try KDF.scrypt(password: Array("password".utf8), salt: salt, n: 16, r: 1, p: 1, outputByteCount: 32)
        let stored = "$scrypt$ln=4,r=1,p=1$\(Base64.encode(salt))$\(Base64.encode(derived))"
        #expect(try fast.verify(password: "password", against: stored))
        #expect(try !fast.verify(password: "Password", against: stored))
        let otherParameters = "$scrypt$ln=5,r=1,p=1$\(Base64.encode(salt))$\(Base64.encode(derived))"
        #expect(try !fast.verify(password: "password", against: otherParameters))
    }

    @Test func needsRehashWhenBelowCurrentDefaults() throws {
        let weak = try fast.hash(password: "pw")
        #expect(PasswordHasher().needsRehash(weak))
        #expect(!fast.needsRehash(weak))
        #expect(PasswordHasher(parameters: .init(logN: 4, r: 16, p: 1)).needsRehash(weak))
        #expect(PasswordHasher().needsRehash("not a hash"))
        #expect(PasswordHasher.Parameters.recommended == .init(logN: 15, r: 8, p: 1))
    }

    @Test(arguments: [
        "", "$scrypt$", "$scrypt$ln=4,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA==", "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA",
        "$scrypt$ln=4,r=8$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        "$scrypt$ln=99,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        "$scrypt$ln=4,r=8,p=1,p=2$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        "$scrypt$ln=-4,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        "$scrypt$ln=4,r=8,p=1$AAAA AAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        "$scrypt$ln=4,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA==$AAAA",
        "$scrypt$ln=4,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=$"
    ])
    func rejectsMalformedStoredStrings(stored: String) {
        expectCryptoError(.invalidPasswordHash) { _ = try fast.verify(password: "pw", against: stored) }
    }
}
