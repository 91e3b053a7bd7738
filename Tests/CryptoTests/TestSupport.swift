import Crypto
import Foundation
import TestSupport
import Testing

/// Shared helpers for the Crypto tests: vector files, hex literals, DER building, the openssl CLI.
enum TestSupport {
    /// The repository's test vectors (`Tests/Fixtures/vectors`, or `TOLLGATE_VECTORS`): the same
    /// folder every other suite reads through `SharedVectors`.
    static var vectorsDirectory: URL { SharedVectors.directory }

    static func vector(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: vectorsDirectory.appendingPathComponent(path)))
    }

    static func vectorText(_ path: String) throws -> String {
        String(decoding: try vector(path), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func hex(_ text: String) -> [UInt8] {
        // Test literals only: a bad literal is a test bug and fails the calling test via #require.
        (try? Hex.decode(text.replacingOccurrences(of: " ", with: ""))) ?? []
    }

    // MARK: DER building for JWK test keys (RFC 7515 appendix A)

    static func derLength(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var value = count
        while value > 0 { bytes.insert(UInt8(value & 0xFF), at: 0); value >>= 8 }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    static func derTLV(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] { [tag] + derLength(content.count) + content }

    static func derInteger(_ magnitude: [UInt8]) -> [UInt8] {
        var bytes = Array(magnitude.drop(while: { $0 == 0 }))
        if bytes.isEmpty { bytes = [0] }
        if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return derTLV(0x02, bytes)
    }

    /// PKCS#1 RSAPrivateKey DER from base64url JWK members n, e, d, p, q, dp, dq, qi.
    static func rsaPrivateKeyDER(_ members: [String]) throws -> [UInt8] {
        var content = derInteger([0])
        for member in members { content += derInteger(try Base64URL.decode(member)) }
        return derTLV(0x30, content)
    }

    /// SubjectPublicKeyInfo DER for an RSA public key (n, e).
    static func rsaPublicKeyDER(n: String, e: String) throws -> [UInt8] {
        let rsaKey = derTLV(0x30, derInteger(try Base64URL.decode(n)) + derInteger(try Base64URL.decode(e)))
        let algorithm = derTLV(0x30, [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01, 0x05, 0x00])
        return derTLV(0x30, algorithm + derTLV(0x03, [0x00] + rsaKey))
    }

    /// SubjectPublicKeyInfo DER for a P-256 public key (x, y).
    static func p256PublicKeyDER(x: String, y: String) throws -> [UInt8] {
        let prefix = hex("3059301306072a8648ce3d020106082a8648ce3d030107034200")
        return prefix + [0x04] + (try Base64URL.decode(x)) + (try Base64URL.decode(y))
    }

    // MARK: openssl command line

    /// A fresh temporary directory, removed by the caller.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("crypto-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    struct CommandFailed: Error, CustomStringConvertible { let description: String }

    /// Runs the openssl command-line tool with `arguments` in `directory`, off the concurrency
    /// pool, throwing on a non-zero exit.
    /// - Throws: `CommandFailed` with openssl's standard error, or naming scripts/install-test-tools
    ///   when openssl is not installed.
    static func openssl(_ arguments: [String], in directory: URL) async throws {
        guard let path = ChildProcessRunner.locate("openssl") else {
            throw CommandFailed(description: "openssl is not installed; run scripts/install-test-tools")
        }
        let result = try await ChildProcessRunner.run(path, arguments, directory: directory.path)
        guard result.status == 0 else {
            throw CommandFailed(description: "openssl \(arguments.joined(separator: " ")): \(result.stderrText)")
        }
    }
}

/// Expects `body` to throw a `CryptoError` of `kind`.
func expectCryptoError(_ kind: CryptoError.Kind, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
    do {
        try body()
        Issue.record("expected CryptoError.\(kind), nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as CryptoError {
        #expect(error.kind == kind, "got \(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected CryptoError.\(kind), got \(error)", sourceLocation: sourceLocation)
    }
}
