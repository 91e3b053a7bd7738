import Crypto
import Foundation
import Integrations
import Testing
import TestSupport

@Suite("External purchase token (Apple)")
struct ExternalPurchaseTokenTests {
    // The example tokens of https://developer.apple.com/documentation/storekit/receiving-and-decoding-external-purchase-tokens
    static let plain =
        "ewoJImFwcEFwcGxlSWQiOjEyMzQ1Njc4OTAsCgkiYnVuZGxlSWQiOiJjb20uZXhhbXBsZSIsCgkidG9rZW5DcmVhdGlvbkRhdGUiOjE3MDYxNjk2MDAwMDAsCgkiZXh0ZXJuYWxQdXJjaGFzZUlkIjoiMDAwMDAwMDAtMDAwMC0wMDAwLTAwMDAtMDAwMDAwMDAwMDAwIgp9"
    static let customLink =
        "eyJhcHBBcHBsZUlkIjoxMjM0NTY3ODkwLCJidW5kbGVJZCI6ImNvbS5leGFtcGxlIiwidG9rZW5DcmVhdGlvbkRhdGUiOjE3NTA4OTYwMDAwMDAsImV4dGVybmFsUHVyY2hhc2VJZCI6IjAwMDAwMDAwLTAwMDAtMDAwMC0wMDAwLTAwMDAwMDAwMDAwMCIsInRva2VuVHlwZSI6IlNFUlZJQ0VTIiwidG9rZW5FeHBpcmF0aW9uRGF0ZSI6MTc4MjQzMjAwMDAwMH0K"
    static let sandboxCustomLink =
        "eyJhcHBBcHBsZUlkIjoxMjM0NTY3ODkwLCJidW5kbGVJZCI6ImNvbS5leGFtcGxlIiwidG9rZW5DcmVhdGlvbkRhdGUiOjE3MzA0NDg3MjAwMDAsImV4dGVybmFsUHVyY2hhc2VJZCI6IlNBTkRCT1hfMDAwMDAwMDAtMDAwMC0wMDAwLTAwMDAtMDAwMDAwMDAwMDAwIiwidG9rZW5UeXBlIjoiU0VSVklDRVMiLCJ0b2tlbkV4cGlyYXRpb25EYXRlIjoxNzMwNDUyMzIwMDAwfQ=="

    static func encode(_ object: [String: Any]) throws -> String {
        Base64URL.encode(try JSONSerialization.data(withJSONObject: object))
    }

    @Test("Apple's documented example tokens decode, with and without padding")
    func appleExamples() throws {
        let plain = try ExternalPurchaseToken(decoding: Self.plain, bundleID: "com.example", appAppleID: 1_234_567_890)
        #expect(plain.externalPurchaseID == "00000000-0000-0000-0000-000000000000")
        #expect(plain.creationDate == Date(timeIntervalSince1970: 1_706_169_600))
        #expect(plain.tokenType == nil)
        #expect(!plain.isSandbox)
        let custom = try ExternalPurchaseToken(decoding: Self.customLink)
        #expect(custom.tokenType == "SERVICES")
        #expect(custom.expirationDate == Date(timeIntervalSince1970: 1_782_432_000))
        let sandbox = try ExternalPurchaseToken(decoding: Self.sandboxCustomLink)
        #expect(sandbox.isSandbox)
        #expect(sandbox.externalPurchaseID == "SANDBOX_00000000-0000-0000-0000-000000000000")
    }

    @Test("The notification vector's externalPurchaseToken, encoded as the app gets it, decodes to the same fields")
    func notificationVector() throws {
        let vector = try #require(
            try JSONSerialization.jsonObject(with: Data(SharedVectors.bytes("apple/models/signedExternalPurchaseTokenNotification.json")))
                as? [String: Any])
        let object = try #require(vector["externalPurchaseToken"] as? [String: Any])
        let token = try ExternalPurchaseToken(decoding: Self.encode(object), bundleID: "com.example", appAppleID: 55555)
        #expect(token.externalPurchaseID == object["externalPurchaseId"] as? String)
        #expect(token.creationDate == Date(timeIntervalSince1970: 1_698_148_950))
    }

    @Test("A token for another app names what differs")
    func otherApp() throws {
        let wrongBundle = #expect(throws: AppStoreError.self) {
            try ExternalPurchaseToken(decoding: Self.plain, bundleID: "com.other", appAppleID: nil)
        }
        #expect(wrongBundle?.tokenError?.kind == .wrongBundleID)
        #expect(wrongBundle?.tokenError?.field == "bundleId")
        let wrongApp = #expect(throws: AppStoreError.self) {
            try ExternalPurchaseToken(decoding: Self.plain, bundleID: "com.example", appAppleID: 42)
        }
        #expect(wrongApp?.tokenError?.kind == .wrongAppAppleID)
        #expect(wrongApp?.tokenError?.message.contains("1234567890") == true)
    }

    @Test(
        "Malformed tokens and missing or mistyped fields are refused, naming the field",
        arguments: [
            ("", AppStoreError.ExternalToken.Kind.malformed, nil as String?),
            ("not base64 !", .malformed, nil),
            ("eyJ+Ly8i", .malformed, nil),
            (Base64URL.encode(Array("[1,2]".utf8)), .malformed, nil),
            (
                Base64URL.encode(Array(#"{"bundleId":"com.example","tokenCreationDate":1,"externalPurchaseId":"x"}"#.utf8)), .invalidField,
                "appAppleId"
            ),
            (
                Base64URL.encode(Array(#"{"appAppleId":"1","bundleId":"com.example","tokenCreationDate":1,"externalPurchaseId":"x"}"#.utf8)),
                .invalidField, "appAppleId"
            ),
            (
                Base64URL.encode(Array(#"{"appAppleId":1,"bundleId":"com.example","tokenCreationDate":true,"externalPurchaseId":"x"}"#.utf8)),
                .invalidField, "tokenCreationDate"
            ),
            (
                Base64URL.encode(Array(#"{"appAppleId":1,"bundleId":"","tokenCreationDate":1,"externalPurchaseId":"x"}"#.utf8)), .invalidField,
                "bundleId"
            ),
            (
                Base64URL.encode(Array(#"{"appAppleId":1,"bundleId":"com.example","tokenCreationDate":1.5,"externalPurchaseId":"x"}"#.utf8)),
                .invalidField, "tokenCreationDate"
            ),
            (
                Base64URL.encode(Array(#"{"appAppleId":-1,"bundleId":"com.example","tokenCreationDate":1,"externalPurchaseId":"x"}"#.utf8)),
                .invalidField, "appAppleId"
            ),
            (
                Base64URL.encode(
                    Array(#"{"appAppleId":1,"appAppleId":2,"bundleId":"com.example","tokenCreationDate":1,"externalPurchaseId":"x"}"#.utf8)),
                .malformed, nil
            ),
            (Base64URL.encode(Array(#"{"appAppleId":1,"bundleId":"com.example","tokenCreationDate":1}"#.utf8)), .invalidField, "externalPurchaseId"),
            (
                Base64URL.encode(
                    Array(#"{"appAppleId":1,"bundleId":"com.example","tokenCreationDate":1,"externalPurchaseId":"x","tokenType":7}"#.utf8)),
                .invalidField, "tokenType"
            )
        ])
    func refused(token: String, kind: AppStoreError.ExternalToken.Kind, field: String?) {
        let error = #expect(throws: AppStoreError.self) { try ExternalPurchaseToken(decoding: token) }
        #expect(error?.tokenError?.kind == kind)
        #expect(error?.tokenError?.field == field)
    }

    @Test("The integers 1 and 0 are integers (not booleans), 2.0 is 2")
    func smallIntegers() throws {
        let token = try ExternalPurchaseToken(
            decoding: Base64URL.encode(
                Array(#"{"appAppleId":1,"bundleId":"com.example","tokenCreationDate":0,"externalPurchaseId":"x","tokenExpirationDate":2.0}"#.utf8)))
        #expect(token.appAppleID == 1)
        #expect(token.creationDate == Date(timeIntervalSince1970: 0))
        #expect(token.expirationDate == Date(timeIntervalSince1970: 0.002))
    }

    @Test("An over-long token is refused before decoding")
    func tooLong() {
        let error = #expect(throws: AppStoreError.self) {
            try ExternalPurchaseToken(decoding: String(repeating: "A", count: ExternalPurchaseToken.maximumLength + 4))
        }
        #expect(error?.tokenError?.kind == .malformed)
    }

    @Test("Google's external transaction token is opaque: only its shape is checked")
    func googleToken() throws {
        #expect(try GooglePlayExternalTransactionToken("abc.DEF-123_x").value == "abc.DEF-123_x")
        #expect { try GooglePlayExternalTransactionToken("") } throws: { ($0 as? UpstreamError)?.reportError != nil }
        #expect { try GooglePlayExternalTransactionToken("with space") } throws: { ($0 as? UpstreamError)?.reportError != nil }
        #expect { try GooglePlayExternalTransactionToken(String(repeating: "a", count: 4097)) } throws: { ($0 as? UpstreamError)?.reportError != nil }
    }
}
