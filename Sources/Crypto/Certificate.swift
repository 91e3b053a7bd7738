import Foundation
#if canImport(Glibc)
    import Glibc
#endif
internal import COpenSSL

/// An X.509 certificate parsed by OpenSSL.
///
/// `@unchecked Sendable`: never mutated after parsing; OpenSSL 3 guards its lazily computed
/// extension cache with a lock, so concurrent reads and chain verification are safe.
public final class Certificate: @unchecked Sendable {
    let pointer: OpaquePointer
    /// The DER encoding this certificate was parsed from (or re-encoded to, for PEM input).
    public let der: [UInt8]

    private init(taking pointer: OpaquePointer, der: [UInt8]) {
        self.pointer = pointer
        self.der = der
    }

    deinit { X509_free(pointer) }

    /// Parses one DER certificate; trailing bytes are refused.
    /// - Throws: `CryptoError.malformedCertificate`.
    public convenience init(der: [UInt8]) throws {
        guard !der.isEmpty, der.count <= Int(Int32.max) else {
            throw CryptoError(.malformedCertificate, "certificate DER is empty or too large")
        }
        let pointer: OpaquePointer = try der.withUnsafeBufferPointer { buffer in
            ERR_clear_error()
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let cert = d2i_X509(nil, &cursor, buffer.count) else {
                throw CryptoError.openSSL(.malformedCertificate, "d2i_X509")
            }
            guard let end = cursor, let start = buffer.baseAddress, end - start == buffer.count else {
                X509_free(cert)
                throw CryptoError(.malformedCertificate, "certificate DER has trailing bytes")
            }
            return cert
        }
        self.init(taking: pointer, der: der)
    }

    /// Parses the first "BEGIN CERTIFICATE" block of a PEM text.
    /// - Throws: `CryptoError.malformedCertificate`.
    public convenience init(pem: String) throws {
        let pointer: OpaquePointer = try withMemoryBIO(Array(pem.utf8)) { bio in
            ERR_clear_error()
            guard let cert = PEM_read_bio_X509(bio, nil, { _, _, _, _ in 0 }, nil) else {
                throw CryptoError.openSSL(.malformedCertificate, "PEM_read_bio_X509")
            }
            return cert
        }
        let length = i2d_X509(pointer, nil)
        var der = [UInt8](repeating: 0, count: max(Int(length), 0))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return length > 0 ? i2d_X509(pointer, &cursor) : -1
        }
        guard length > 0, written == length else {
            X509_free(pointer)
            throw CryptoError.openSSL(.malformedCertificate, "i2d_X509")
        }
        self.init(taking: pointer, der: der)
    }

    /// The subject distinguished name in RFC 2253 form, e.g. `CN=Apple Root CA - G3,OU=...`.
    /// - Throws: `CryptoError.openSSLFailure` if the name cannot be printed.
    public func subject() throws -> String {
        ERR_clear_error()
        guard let bio = BIO_new(BIO_s_mem()) else { throw CryptoError.openSSL("BIO_new") }
        defer { BIO_free(bio) }
        guard X509_NAME_print_ex(bio, X509_get_subject_name(pointer), 0, tollgate_xn_flag_rfc2253()) >= 0 else {
            throw CryptoError.openSSL("X509_NAME_print_ex")
        }
        var data: UnsafeMutablePointer<CChar>?
        let length = tollgate_bio_get_mem_data(bio, &data)
        guard length >= 0 else { throw CryptoError.openSSL("BIO_get_mem_data") }
        guard let data, length > 0 else { return "" }
        return data.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }

    /// The start of the validity period.
    /// - Throws: `CryptoError.malformedCertificate` if the time cannot be read.
    public func notBefore() throws -> Date { try Self.date(X509_get0_notBefore(pointer), "notBefore") }

    /// The end of the validity period.
    /// - Throws: `CryptoError.malformedCertificate` if the time cannot be read.
    public func notAfter() throws -> Date { try Self.date(X509_get0_notAfter(pointer), "notAfter") }

    /// Whether the certificate carries an extension with this dotted OID (presence only).
    /// - Throws: `CryptoError.invalidParameter` if `oid` is not a dotted OID.
    public func hasExtension(oid: String) throws -> Bool {
        ERR_clear_error()
        guard oid.utf8.allSatisfy({ $0 == UInt8(ascii: ".") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let object = OBJ_txt2obj(oid, 1)
        else {
            ERR_clear_error()
            throw CryptoError(.invalidParameter, "'\(oid)' is not a dotted OID")
        }
        defer { ASN1_OBJECT_free(object) }
        return X509_get_ext_by_OBJ(pointer, object, -1) >= 0
    }

    /// The subject public key, for signature verification.
    /// - Throws: `CryptoError.invalidKey` if the key is missing or not P-256 / RSA ≥ 2048.
    public func publicKey() throws -> VerificationKey {
        try VerificationKey(key: publicPKey())
    }

    func publicPKey() throws -> PKey {
        ERR_clear_error()
        guard let key = X509_get_pubkey(pointer) else { throw CryptoError.openSSL(.invalidKey, "X509_get_pubkey") }
        return PKey(taking: key)
    }

    private static func date(_ time: UnsafePointer<ASN1_TIME>?, _ name: String) throws -> Date {
        var parts = tm()
        guard let time, ASN1_TIME_to_tm(time, &parts) == 1 else {
            throw CryptoError.openSSL(.malformedCertificate, "ASN1_TIME_to_tm(\(name))")
        }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }
}
