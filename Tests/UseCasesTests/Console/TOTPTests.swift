import Domain
import Foundation
import Testing

/// RFC 6238's SHA-1 vectors (its appendix B, the last six of the eight digits) and RFC 4648's
/// base32 vectors: the codes our operators' authenticator apps show.
@Suite("TOTP and base32")
struct TOTPTests {
    static let secret = Array("12345678901234567890".utf8)

    @Test(
        "RFC 6238 appendix B, SHA-1",
        arguments: [
            (59, "287082"), (1_111_111_109, "081804"), (1_111_111_111, "050471"), (1_234_567_890, "005924"), (2_000_000_000, "279037")
        ] as [(Int64, String)])
    func vectors(seconds: Int64, code: String) throws {
        #expect(try TOTP.code(secret: Self.secret, step: seconds / 30) == code)
    }

    @Test("A code is accepted one step either side, once: never again, nor an earlier step's after a later one was used")
    func window() throws {
        let now = Date(timeIntervalSince1970: 1_234_567_890)
        let step = TOTP.step(at: now)
        for offset: Int64 in [-1, 0, 1] {
            let code = try TOTP.code(secret: Self.secret, step: step + offset)
            #expect(try TOTP.matchingStep(code, secret: Self.secret, now: now, after: nil) == step + offset)
            #expect(try TOTP.matchingStep(code, secret: Self.secret, now: now, after: step + offset) == nil, "replayed")
        }
        #expect(try TOTP.matchingStep(try TOTP.code(secret: Self.secret, step: step - 2), secret: Self.secret, now: now, after: nil) == nil)
        #expect(try TOTP.matchingStep(try TOTP.code(secret: Self.secret, step: step + 2), secret: Self.secret, now: now, after: nil) == nil)
        #expect(try TOTP.matchingStep("12345", secret: Self.secret, now: now, after: nil) == nil)
        #expect(try TOTP.matchingStep("abcdef", secret: Self.secret, now: now, after: nil) == nil)
    }

    @Test("Base32 as RFC 4648 writes it (without padding) and back")
    func base32() {
        for (text, encoded) in [
            ("", ""), ("f", "MY"), ("fo", "MZXQ"), ("foo", "MZXW6"), ("foob", "MZXW6YQ"), ("fooba", "MZXW6YTB"), ("foobar", "MZXW6YTBOI")
        ] {
            #expect(Base32.encode(Array(text.utf8)) == encoded)
            #expect(Base32.decode(encoded.lowercased()) == Array(text.utf8))
        }
        #expect(Base32.decode("MZ1W") == nil)
    }

    @Test("The provisioning URI names the issuer, the account and the parameters authenticator apps need")
    func uri() {
        let uri = TOTP.provisioningURI(secret: Self.secret, account: "ann@example.com", issuer: "Example console")
        #expect(
            uri
                == "otpauth://totp/Example%20console:ann@example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Example%20console&algorithm=SHA1&digits=6&period=30"
        )
    }

    @Test("Roles: viewer reads, support acts for a buyer, admin does everything")
    func roles() {
        #expect(OperatorRole.viewer.allows(.read) && !OperatorRole.viewer.allows(.resendCode))
        #expect(
            OperatorRole.support.allows(.resendCode) && OperatorRole.support.allows(.movePurchase) && !OperatorRole.support.allows(.deleteAccount))
        #expect(OperatorRole.Permission.allCases.allSatisfy { OperatorRole.admin.allows($0) })
    }
}
