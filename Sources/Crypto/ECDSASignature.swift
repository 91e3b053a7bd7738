internal import COpenSSL

/// Conversions between JOSE raw r‖s ECDSA P-256 signatures and the DER form OpenSSL uses.
enum ECDSASignature {
    static let rawLength = 64
    private static let scalarLength = 32

    /// raw r‖s (64 bytes) → DER `ECDSA-Sig-Value`, via `ECDSA_SIG_set0` + `i2d_ECDSA_SIG`.
    static func der(fromRaw raw: UnsafeRawBufferPointer) throws -> [UInt8] {
        guard raw.count == rawLength, let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw CryptoError(.malformedSignature, "ES256 signature is \(raw.count) bytes; exactly 64 required")
        }
        ERR_clear_error()
        guard let sig = ECDSA_SIG_new() else { throw CryptoError.openSSL("ECDSA_SIG_new") }
        defer { ECDSA_SIG_free(sig) }
        guard let r = BN_bin2bn(base, Int32(scalarLength), nil) else { throw CryptoError.openSSL("BN_bin2bn") }
        guard let s = BN_bin2bn(base + scalarLength, Int32(scalarLength), nil) else {
            BN_free(r)
            throw CryptoError.openSSL("BN_bin2bn")
        }
        guard ECDSA_SIG_set0(sig, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            throw CryptoError.openSSL("ECDSA_SIG_set0")
        }
        let length = i2d_ECDSA_SIG(sig, nil)
        guard length > 0 else { throw CryptoError.openSSL(.malformedSignature, "i2d_ECDSA_SIG") }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(sig, &cursor)
        }
        guard written == length else { throw CryptoError.openSSL(.malformedSignature, "i2d_ECDSA_SIG") }
        return der
    }

    /// DER `ECDSA-Sig-Value` → raw r‖s, each scalar left-padded to 32 bytes.
    static func raw(fromDER der: [UInt8]) throws -> [UInt8] {
        ERR_clear_error()
        return try der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let sig = d2i_ECDSA_SIG(nil, &cursor, buffer.count) else {
                throw CryptoError.openSSL(.malformedSignature, "d2i_ECDSA_SIG")
            }
            defer { ECDSA_SIG_free(sig) }
            var r: OpaquePointer?
            var s: OpaquePointer?
            ECDSA_SIG_get0(sig, &r, &s)
            var raw = [UInt8](repeating: 0, count: rawLength)
            let ok = raw.withUnsafeMutableBufferPointer { out -> Bool in
                guard let base = out.baseAddress else { return false }
                return BN_bn2binpad(r, base, Int32(scalarLength)) == Int32(scalarLength)
                    && BN_bn2binpad(s, base + scalarLength, Int32(scalarLength)) == Int32(scalarLength)
            }
            guard ok else { throw CryptoError.openSSL("BN_bn2binpad") }
            return raw
        }
    }
}
