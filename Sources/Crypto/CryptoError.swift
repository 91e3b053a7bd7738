import Foundation
internal import COpenSSL

/// The one error type of the Crypto module: a machine-readable kind plus a message a person can act on.
///
/// Messages never contain key material, passwords, plaintexts or MACs; for OpenSSL failures they
/// carry the text of the first `ERR_get_error` entry.
public struct CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, precise enough for callers to branch on.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// Text or bytes that are not valid base64, base64url, hex or PEM.
        case malformedEncoding
        /// A key that cannot be parsed, is of the wrong type or curve, or is too small.
        case invalidKey
        /// A signature of the wrong shape (ES256 not 64 bytes, RSA not the modulus size).
        case malformedSignature
        /// A well-formed signature that does not verify.
        case signatureMismatch
        /// AES-GCM tag check failed, or the sealed box is too short.
        case authenticationFailed
        /// Bytes that are not a DER or PEM X.509 certificate.
        case malformedCertificate
        /// A certificate of the chain had expired at the validation time.
        case certificateExpired
        /// A certificate of the chain was not yet valid at the validation time.
        case certificateNotYetValid
        /// The chain does not end at one of the configured roots.
        case untrustedRoot
        /// A certificate's signature does not verify under its issuer's key.
        case certificateSignatureInvalid
        /// Any other chain-building failure reported by `X509_verify_cert`.
        case certificateChainInvalid
        /// The chain built has the wrong number of certificates.
        case chainLengthMismatch
        /// A required certificate extension (marker OID) is absent.
        case missingExtension
        /// A compact JWS/JWT that is not three base64url parts with JSON-object header and payload,
        /// or whose header lacks what the verification rule needs.
        case invalidJWSFormat
        /// An algorithm other than the one the key or rule requires.
        case unsupportedAlgorithm
        /// A stored password string that cannot be parsed or has out-of-range parameters.
        case invalidPasswordHash
        /// An argument outside its allowed range (key length, output length, cost parameters).
        case invalidParameter
        /// `RAND_bytes` failed.
        case randomFailure
        /// An OpenSSL call failed for a reason not covered above.
        case openSSLFailure
        /// A TLS client could not be set up (bad CA file, OpenSSL refused an option).
        case tlsConfiguration
        /// A TLS peer's certificate was not trusted or does not match the host name.
        case tlsCertificateVerification
        /// A TLS handshake failed for another reason (protocol version, cipher, peer alert).
        case tlsHandshake
        /// Reading or writing over TLS failed, or the peer closed the connection.
        case tlsIO
        /// The socket's receive or send timeout expired during a TLS call.
        case tlsTimeout

        /// For a TLS failure, its name in `TLS <name> error: ...`; nil for the other kinds.
        var tlsName: String? {
            switch self {
            case .tlsConfiguration: "configuration"
            case .tlsCertificateVerification: "certificateVerification"
            case .tlsHandshake: "handshake"
            case .tlsIO: "io"
            case .tlsTimeout: "timeout"
            default: nil
            }
        }
    }

    /// Which of the three JWS verification outcomes an error belongs to.
    public enum JWSCategory: String, Sendable, Equatable {
        /// Not a usable compact JWS (parts, base64url, JSON, header fields).
        case invalidFormat
        /// The certificate chain, its marker OIDs or its validity at the validation time.
        case invalidCertificate
        /// The signature itself (or the key used to check it).
        case verificationFailure
    }

    /// The kind of failure.
    public let kind: Kind
    /// A human-readable explanation, free of secrets.
    public let message: String

    /// Creates an error of the given kind.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// `kind: message`, or `TLS <kind> error: message` for a TLS failure.
    public var description: String {
        if let tls = kind.tlsName { return "TLS \(tls) error: \(message)" }
        return "\(kind.rawValue): \(message)"
    }

    /// The JWS verification category of this error.
    public var jwsCategory: JWSCategory {
        switch kind {
        case .malformedEncoding, .invalidJWSFormat, .unsupportedAlgorithm:
            return .invalidFormat
        case .malformedCertificate, .certificateExpired, .certificateNotYetValid, .untrustedRoot,
            .certificateSignatureInvalid, .certificateChainInvalid, .chainLengthMismatch, .missingExtension:
            return .invalidCertificate
        case .invalidKey, .malformedSignature, .signatureMismatch, .authenticationFailed,
            .invalidPasswordHash, .invalidParameter, .randomFailure, .openSSLFailure:
            return .verificationFailure
        // JWS verification never raises these; they sort with the other non-format failures.
        case .tlsConfiguration, .tlsCertificateVerification, .tlsHandshake, .tlsIO, .tlsTimeout:
            return .verificationFailure
        }
    }
}

extension CryptoError {
    /// An error for a failed OpenSSL call: the operation plus the first queued OpenSSL error text.
    /// Drains the thread's error queue so a later call does not report a stale entry.
    static func openSSL(_ operation: String) -> CryptoError {
        openSSL(.openSSLFailure, operation)
    }

    /// Like `openSSL(_:)` with a specific kind.
    static func openSSL(_ kind: Kind, _ operation: String) -> CryptoError {
        let code = ERR_get_error()
        var detail = ""
        if code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            buffer.withUnsafeMutableBufferPointer { ERR_error_string_n(code, $0.baseAddress, $0.count) }
            detail = ": " + String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        ERR_clear_error()
        return CryptoError(kind, "\(operation) failed\(detail)")
    }
}

/// Runs `body` over the bytes of any contiguous collection, with a non-nil base address even when
/// empty (OpenSSL rejects NULL for some zero-length inputs).
@inline(__always)
func withBytes<T, R>(_ bytes: T, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
where T: ContiguousBytes {
    try bytes.withUnsafeBytes { buffer in
        if buffer.baseAddress != nil { return try body(buffer) }
        var zero: UInt8 = 0
        return try withUnsafeBytes(of: &zero) { try body(UnsafeRawBufferPointer(rebasing: $0[0..<0])) }
    }
}
