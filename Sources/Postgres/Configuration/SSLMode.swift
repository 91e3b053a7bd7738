/// Whether and how the connection is encrypted, named and behaving as libpq's `sslmode`.
public enum SSLMode: String, Sendable, Equatable, CaseIterable {
    /// Plain TCP; no SSLRequest is sent.
    case disable
    /// TLS without verification when the server offers it, plain TCP when it refuses (libpq's default).
    case prefer
    /// TLS or nothing, without verifying the server's certificate: encryption against passive
    /// eavesdroppers only (libpq's documented meaning of `require` without a root certificate).
    case require
    /// TLS, the certificate chain verified against `sslrootcert` (or the system store) and the
    /// certificate's name checked against the host.
    case verifyFull = "verify-full"
}
