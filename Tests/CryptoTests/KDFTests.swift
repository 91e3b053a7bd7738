import Crypto
import Foundation
import Testing

@Suite struct KDFTests {
    @Test func hkdfMatchesRFC5869Case1() throws {
        let okm = try KDF.hkdfSHA256(
            inputKeyMaterial: [UInt8](repeating: 0x0b, count: 22),
            salt: TestSupport.hex("000102030405060708090a0b0c"),
            info: TestSupport.hex("f0f1f2f3f4f5f6f7f8f9"), outputByteCount: 42)
        #expect(Hex.encode(okm) == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
        expectCryptoError(.invalidParameter) {
            _ = try KDF.hkdfSHA256(inputKeyMaterial: [1], salt: [UInt8](), info: [UInt8](), outputByteCount: 0)
        }
    }

    @Test func scryptMatchesRFC7914Vectors() throws {
        let empty = try KDF.scrypt(password: [UInt8](), salt: [UInt8](), n: 16, r: 1, p: 1, outputByteCount: 64)
        #expect(
            Hex.encode(empty)
                == "77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906")
        let nacl = try KDF.scrypt(password: Array("password".utf8), salt: Array("NaCl".utf8), n: 1024, r: 8, p: 16, outputByteCount: 64)
        #expect(
            Hex.encode(nacl)
                == "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640")
        let sodium = try KDF.scrypt(
            password: Array("pleaseletmein".utf8), salt: Array("SodiumChloride".utf8), n: 16384, r: 8, p: 1, outputByteCount: 64)
        #expect(
            Hex.encode(sodium)
                == "7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887")
        expectCryptoError(.invalidParameter) {
            _ = try KDF.scrypt(password: [1], salt: [1], n: 1000, r: 8, p: 1, outputByteCount: 32)
        }
    }

    @Test func pbkdf2SHA256MatchesRFC7914Vectors() throws {
        let one = try KDF.pbkdf2SHA256(password: Array("passwd".utf8), salt: Array("salt".utf8), iterations: 1, outputByteCount: 64)
        #expect(
            Hex.encode(one)
                == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783")
        let many = try KDF.pbkdf2SHA256(password: Array("Password".utf8), salt: Array("NaCl".utf8), iterations: 80000, outputByteCount: 64)
        #expect(
            Hex.encode(many)
                == "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d")
        expectCryptoError(.invalidParameter) {
            _ = try KDF.pbkdf2SHA256(password: [1], salt: [1], iterations: 0, outputByteCount: 32)
        }
    }

    @Test func md5MatchesRFC1321Vectors() throws {
        #expect(Hex.encode(try MD5.hash([UInt8]())) == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(Hex.encode(try MD5.hash(Array("abc".utf8))) == "900150983cd24fb0d6963f7d28e17f72")
    }

    @Test func aesGCMSealsWithFreshNoncesAndOpens() throws {
        let key = try SecureRandom.bytes(count: 32)
        let message = Array("ABCD-EFGH-JKMN-PQRS".utf8)
        let first = try AESGCM.seal(message, key: key, associatedData: Array("code:1".utf8))
        let second = try AESGCM.seal(message, key: key, associatedData: Array("code:1".utf8))
        #expect(first.count == 12 + message.count + 16)
        #expect(first != second)
        #expect(try AESGCM.open(first, key: key, associatedData: Array("code:1".utf8)) == message)
        #expect(try AESGCM.open(AESGCM.seal([UInt8](), key: key), key: key).isEmpty)
    }

    @Test func aesGCMRejectsTamperingWrongKeyAndWrongAssociatedData() throws {
        let key = try SecureRandom.bytes(count: 32)
        let sealed = try AESGCM.seal(Array("secret".utf8), key: key, associatedData: Array("a".utf8))
        for index in [0, 12, sealed.count - 1] {
            var tampered = sealed
            tampered[index] ^= 0x01
            expectCryptoError(.authenticationFailed) { _ = try AESGCM.open(tampered, key: key, associatedData: Array("a".utf8)) }
        }
        expectCryptoError(.authenticationFailed) {
            _ = try AESGCM.open(sealed, key: try SecureRandom.bytes(count: 32), associatedData: Array("a".utf8))
        }
        expectCryptoError(.authenticationFailed) { _ = try AESGCM.open(sealed, key: key, associatedData: Array("b".utf8)) }
        expectCryptoError(.authenticationFailed) { _ = try AESGCM.open(Array(sealed.prefix(27)), key: key) }
        expectCryptoError(.invalidParameter) { _ = try AESGCM.seal([1], key: [UInt8](repeating: 0, count: 16)) }
    }

    @Test func hkdfDerivedKeyEncryptsRedemptionCodes() throws {
        let secretKey = try SecureRandom.bytes(count: 32)
        let codeKey = try KDF.hkdfSHA256(
            inputKeyMaterial: secretKey, salt: [UInt8](), info: Array("tollgate redemption codes v1".utf8), outputByteCount: 32)
        let otherKey = try KDF.hkdfSHA256(inputKeyMaterial: secretKey, salt: [UInt8](), info: Array("something else".utf8), outputByteCount: 32)
        #expect(codeKey != otherKey)
        let sealed = try AESGCM.seal(Array("0123456789ABCDEF".utf8), key: codeKey)
        #expect(try AESGCM.open(sealed, key: codeKey) == Array("0123456789ABCDEF".utf8))
        expectCryptoError(.authenticationFailed) { _ = try AESGCM.open(sealed, key: otherKey) }
    }
}
