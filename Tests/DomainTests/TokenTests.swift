import Crypto
import Domain
import Foundation
import Testing

@Suite struct TokenTests {
    @Test func opaqueTokensAreURLSafeAnd256Bits() throws {
        var seen = Set<String>()
        for _ in 0..<100 {
            let token = try OpaqueToken.generate()
            #expect(token.count == 43)
            #expect(try Base64URL.decode(token).count == 32)
            #expect(token.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
            seen.insert(token)
        }
        #expect(seen.count == 100)
    }

    @Test func redemptionCodesAreSixteenCrockfordCharactersGrouped() throws {
        let alphabet = Set("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        var seen = Set<String>()
        for _ in 0..<200 {
            let code = try RedemptionCode.generate()
            #expect(code.canonical.count == 16)
            #expect(code.canonical.allSatisfy { alphabet.contains($0) })
            #expect(code.display.count == 19)
            #expect(code.display.split(separator: "-").map(\.count) == [4, 4, 4, 4])
            #expect(RedemptionCode(normalizing: code.display) == code)
            #expect(RedemptionCode(normalizing: code.display.lowercased()) == code)
            seen.insert(code.canonical)
        }
        #expect(seen.count == 200)
    }

    @Test func normalizerMapsLookalikesAndRejectsEverythingElse() {
        #expect(RedemptionCode(normalizing: "abcd-efgh-jkmn-pqrs")?.canonical == "ABCDEFGHJKMNPQRS")
        #expect(RedemptionCode(normalizing: " oOiI lLzZ-0000 1111 ")?.canonical == "001111ZZ00001111")
        #expect(RedemptionCode(normalizing: "ABCD-EFGH-JKMN-PQR") == nil)
        #expect(RedemptionCode(normalizing: "ABCD-EFGH-JKMN-PQRST") == nil)
        #expect(RedemptionCode(normalizing: "ABCD-EFGH-JKMN-PQRU") == nil)
        #expect(RedemptionCode(normalizing: "ABCD_EFGH_JKMN_PQRS") == nil)
        #expect(RedemptionCode(normalizing: "ÀBCD-EFGH-JKMN-PQRS") == nil)
        #expect(RedemptionCode(normalizing: "") == nil)
    }

    @Test("As the sixteenth character, every character of Latin-1 is read as Crockford's alphabet reads it, or refused")
    func normalizerReadsEachLastCharacter() {
        let alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
        let lookalikes: [Character: Character] = ["O": "0", "o": "0", "I": "1", "i": "1", "L": "1", "l": "1"]
        for value in UInt32(0)..<256 {
            let character = Character(UnicodeScalar(value)!)
            let read: Character? =
                lookalikes[character]
                ?? (character.isASCII && alphabet.contains(Character(character.uppercased())) ? Character(character.uppercased()) : nil)
            let normalized = RedemptionCode(normalizing: "0000-0000-0000-000" + String(character))
            #expect(normalized?.canonical == read.map { "000000000000000" + String($0) }, "U+\(String(value, radix: 16))")
        }
    }

    @Test func obfuscatedIDsAreStableKeyedAndValidUUIDs() throws {
        let key = Array("secret_key-for-tests".utf8)
        let ids = try ObfuscatedID(secretKey: key)
        let string = try ids.string(for: "acct_42")
        #expect(string == (try ids.string(for: "acct_42")))
        #expect(string == Base64URL.encode(try HMACSHA256.authenticationCode(for: Array("acct_42".utf8), key: key)))
        #expect(string != (try ids.string(for: "acct_43")))
        #expect(string != (try ObfuscatedID(secretKey: Array("other".utf8)).string(for: "acct_42")))
        let uuid = try ids.uuid(for: "acct_42")
        #expect(uuid == uuid.lowercased())
        #expect(UUID(uuidString: uuid) != nil)
        let parts = uuid.split(separator: "-")
        #expect(parts.map(\.count) == [8, 4, 4, 4, 12])
        #expect(parts[2].first == "4")
        #expect(["8", "9", "a", "b"].contains(parts[3].first.map(String.init) ?? ""))
        #expect(try ids.uuid(for: "acct_42") == uuid)
    }
}
