import Foundation
internal import COpenSSL

/// HMAC-SHA256 (RFC 2104) with the key schedule computed once, so each MAC costs only the hashing.
public struct HMACSHA256: Sendable {
    /// The MAC length in bytes.
    public static let byteCount = 32
    private static let blockSize = 64

    // Hash states after absorbing key⊕ipad and key⊕opad; plain C structs, copied per MAC.
    private var inner = SHA256_CTX()
    private var outer = SHA256_CTX()

    /// Prepares a MAC key (keys longer than 64 bytes are hashed first, as RFC 2104 says).
    /// - Throws: `CryptoError.openSSLFailure` if OpenSSL reports a failure.
    public init(key: some ContiguousBytes) throws {
        var block = [UInt8](repeating: 0, count: Self.blockSize)
        let keyBytes = key.withUnsafeBytes { Array($0) }
        if keyBytes.count > Self.blockSize {
            let digest = try SHA256.hash(keyBytes)
            block.replaceSubrange(0..<digest.count, with: digest)
        } else {
            block.replaceSubrange(0..<keyBytes.count, with: keyBytes)
        }
        let ipad = block.map { $0 ^ 0x36 }
        let opad = block.map { $0 ^ 0x5c }
        guard tollgate_sha256_init(&inner) == 1, tollgate_sha256_init(&outer) == 1 else {
            throw CryptoError.openSSL("SHA256_Init")
        }
        let okInner = ipad.withUnsafeBytes { tollgate_sha256_update(&inner, $0.baseAddress, $0.count) }
        let okOuter = opad.withUnsafeBytes { tollgate_sha256_update(&outer, $0.baseAddress, $0.count) }
        guard okInner == 1, okOuter == 1 else { throw CryptoError.openSSL("SHA256_Update") }
    }

    /// The MAC of `data` under this key.
    /// - Throws: `CryptoError.openSSLFailure` if OpenSSL reports a failure.
    public func authenticationCode(for data: some ContiguousBytes) throws -> [UInt8] {
        var mac = [UInt8](repeating: 0, count: Self.byteCount)
        try mac.withUnsafeMutableBufferPointer { out in
            try data.withUnsafeBytes { try compute(into: out.baseAddress, $0) }
        }
        return mac
    }

    /// Whether `mac` is the full 32-byte MAC of `data`, compared in constant time.
    /// - Throws: `CryptoError.openSSLFailure` if OpenSSL reports a failure.
    public func isValidAuthenticationCode(_ mac: some ContiguousBytes, for data: some ContiguousBytes) throws -> Bool {
        let expected = try authenticationCode(for: data)
        return ConstantTime.equals(mac, expected)
    }

    /// One-shot HMAC-SHA256.
    /// - Throws: `CryptoError.openSSLFailure` if OpenSSL reports a failure.
    public static func authenticationCode(for data: some ContiguousBytes, key: some ContiguousBytes) throws -> [UInt8] {
        try HMACSHA256(key: key).authenticationCode(for: data)
    }

    private func compute(into out: UnsafeMutablePointer<UInt8>?, _ data: UnsafeRawBufferPointer) throws {
        var innerState = inner
        var outerState = outer
        var innerDigest = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        let ok: Bool = withUnsafeMutableBytes(of: &innerDigest) { digest in
            let d = digest.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return tollgate_sha256_update(&innerState, data.baseAddress, data.count) == 1
                && tollgate_sha256_final(d, &innerState) == 1
                && tollgate_sha256_update(&outerState, digest.baseAddress, Self.byteCount) == 1
                && tollgate_sha256_final(out, &outerState) == 1
        }
        guard ok else { throw CryptoError.openSSL("HMAC-SHA256") }
    }
}
