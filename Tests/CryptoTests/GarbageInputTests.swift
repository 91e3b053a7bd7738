import Crypto
import Foundation
import Testing

/// Random, truncated and huge inputs into every parser: each returns a typed error, never crashes.
@Suite struct GarbageInputTests {
    static let huge: [UInt8] = (try? SecureRandom.bytes(count: 2 * 1024 * 1024)) ?? []

    static func samples() throws -> [[UInt8]] {
        var samples: [[UInt8]] = [[], [0], [0x30], [0x30, 0x82, 0xFF, 0xFF], Array("-----BEGIN PRIVATE KEY-----\n".utf8)]
        for length in [1, 7, 64, 300, 4096] { samples.append(try SecureRandom.bytes(count: length)) }
        let p8 = try TestSupport.vector("apple/certs/testSigningKey.p8")
        let cert = try TestSupport.vector("apple/testfile_certs/real_apple_root.der")
        let jws = try TestSupport.vector("apple/mock_signed_data/transactionInfo")
        for source in [p8, cert, jws] {
            samples.append(Array(source.prefix(source.count / 2)))
            samples.append(Array(source.dropLast(max(source.count / 10, 2))))
            var flipped = source
            flipped[flipped.count / 3] ^= 0xFF
            samples.append(flipped)
        }
        samples.append(huge)
        samples.append([UInt8](repeating: UInt8(ascii: "A"), count: 2 * 1024 * 1024 + 1))
        return samples
    }

    /// `sample` as text for the string parsers. Samples up to 64 KiB are decoded as UTF-8 with
    /// invalid bytes replaced by U+FFFD. Larger ones map each byte to the character of the same
    /// number (ISO 8859-1), which is the same text for ASCII and as much garbage otherwise: the
    /// standard library's repair of invalid UTF-8 costs about 3 µs per bad byte, over 6 s of one
    /// pool thread for the 2 MiB random sample, time spent in the test and not in any parser.
    static func text(_ sample: [UInt8]) -> String? {
        if sample.count <= 64 * 1024 { return String(decoding: sample, as: UTF8.self) }
        return String(bytes: sample, encoding: .isoLatin1)
    }

    /// Runs `body`, which must either succeed or throw a `CryptoError` (never another error type).
    func typed(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) {
        do { try body() } catch is CryptoError {} catch {
            Issue.record("untyped error \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func everyParserFailsWithATypedError() throws {
        let samples = try Self.samples()
        #expect(Self.huge.count == 2 * 1024 * 1024)
        let verifier = X5CVerifier(trustedRoots: [try Certificate(der: TestSupport.vector("apple/certs/testCA.der"))])
        let hasher = PasswordHasher(parameters: .init(logN: 4, r: 1, p: 1))
        for sample in samples {
            let text = try #require(Self.text(sample))
            typed { _ = try Base64.decode(text) }
            typed { _ = try Base64URL.decode(text) }
            typed { _ = try Hex.decode(text) }
            expectCryptoError(.invalidKey) { _ = try SigningKey(pem: text) }
            expectCryptoError(.invalidKey) { _ = try SigningKey(der: sample) }
            expectCryptoError(.invalidKey) { _ = try VerificationKey(pem: text) }
            expectCryptoError(.invalidKey) { _ = try VerificationKey(der: sample) }
            expectCryptoError(.malformedCertificate) { _ = try Certificate(der: sample) }
            expectCryptoError(.malformedCertificate) { _ = try Certificate(pem: text) }
            typed { _ = try CompactJWS(parsing: text) }
            typed { try verifier.verify(text) }
            expectCryptoError(.invalidPasswordHash) { _ = try hasher.verify(password: "x", against: text) }
            typed { _ = try AESGCM.open(sample, key: [UInt8](repeating: 7, count: 32)) }
        }
    }

    @Test func jwsGarbageIsAlwaysInvalidFormat() throws {
        let valid = try TestSupport.vectorText("apple/mock_signed_data/transactionInfo")
        let parts = valid.split(separator: ".").map(String.init)
        let cases = [
            "", ".", "..", "a.b", "a.b.c.d", parts[0] + "." + parts[1], parts[0] + "." + parts[1] + ".",
            parts[0] + "=." + parts[1] + "." + parts[2],
            Base64URL.encode(Array("[1,2]".utf8)) + "." + parts[1] + "." + parts[2],
            parts[0] + "." + Base64URL.encode(Array("\"str\"".utf8)) + "." + parts[2],
            Base64URL.encode(Array("{\"alg\":5}".utf8)) + "." + parts[1] + "." + parts[2],
            Base64URL.encode(Array("{not json".utf8)) + "." + parts[1] + "." + parts[2],
            String(valid.dropLast(valid.count / 2)),
            String(repeating: "A", count: 10 * 1024 * 1024) + "." + parts[1] + "." + parts[2]
        ]
        for text in cases {
            expectCryptoError(.invalidJWSFormat) { _ = try CompactJWS(parsing: text) }
        }
    }

    @Test func concurrentVerificationsShareKeysAndCache() async throws {
        let verifier = X5CVerifier(trustedRoots: [try Certificate(der: TestSupport.vector("apple/certs/testCA.der"))])
        let compact = try TestSupport.vectorText("apple/mock_signed_data/transactionInfo")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<20 { try verifier.verify(compact) } }
            }
            try await group.waitForAll()
        }
    }
}
