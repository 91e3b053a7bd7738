internal import COpenSSL

#if canImport(Glibc)
    import Glibc
#endif

/// A TLS client session over an already connected, blocking socket, with peer verification.
///
/// The caller owns the socket: it connects it, sets its receive/send timeouts (`SO_RCVTIMEO`,
/// `SO_SNDTIMEO`: an expired timeout surfaces as `CryptoError.Kind.tlsTimeout`) and closes it after
/// this object is gone. Construction performs the handshake. Host name and certificate
/// verification are on (`SSL_VERIFY_PEER` plus `SSL_set1_host`, or the IP address for an IP
/// literal) unless the configuration is `.encryptionOnly`; SNI is sent for names, and TLS 1.2 is
/// the minimum version.
///
/// Not Sendable: one thread uses a session at a time. It owns its `SSL_CTX` and `SSL` handles
/// and frees them in `deinit`.
public final class TLSClientConnection {
    private let context: OpaquePointer
    private let ssl: OpaquePointer
    private var isShutDown = false

    /// Performs a TLS handshake over the connected socket `fd` as a client of `host`.
    /// - Throws: `CryptoError` (`.tlsConfiguration` when the CA file cannot be loaded,
    ///   `.tlsCertificateVerification` when the peer is not trusted or is not `host`,
    ///   `.tlsHandshake`, `.tlsIO` or `.tlsTimeout` otherwise).
    public init(fd: Int32, host: String, configuration: TLSClientConfiguration = TLSClientConfiguration()) throws {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw Self.error(.tlsConfiguration, "cannot create an SSL context")
        }
        self.context = context
        guard let ssl = SSL_new(context) else {
            SSL_CTX_free(context)
            throw Self.error(.tlsConfiguration, "cannot create an SSL session")
        }
        self.ssl = ssl
        // From here on `deinit` frees both handles if a step below throws.
        if configuration.verifiesPeer {
            try configure(fd: fd, host: host, configuration: configuration)
        } else {
            try configureEncryptionOnly(fd: fd, host: host)
        }
        try handshake(verifiesPeer: configuration.verifiesPeer)
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
    }

    private func configure(fd: Int32, host: String, configuration: TLSClientConfiguration) throws {
        // SSL_CTX_set_min_proto_version is a macro over SSL_CTX_ctrl.
        guard SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_2_VERSION), nil) == 1 else {
            throw Self.error(.tlsConfiguration, "cannot require TLS 1.2 or later")
        }
        if let caFile = configuration.caFile {
            guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                throw Self.error(.tlsConfiguration, "cannot load the CA file '\(caFile)'")
            }
        } else {
            guard SSL_CTX_set_default_verify_paths(context) == 1 else {
                throw Self.error(.tlsConfiguration, "cannot load the system CA store")
            }
        }
        SSL_set_verify(ssl, SSL_VERIFY_PEER, nil)
        if Self.isIPAddress(host) {
            guard let parameters = SSL_get0_param(ssl), X509_VERIFY_PARAM_set1_ip_asc(parameters, host) == 1 else {
                throw Self.error(.tlsConfiguration, "cannot set the IP address '\(host)' to verify")
            }
        } else {
            guard SSL_set1_host(ssl, host) == 1 else {
                throw Self.error(.tlsConfiguration, "cannot set the host name '\(host)' to verify")
            }
            // SNI is only for names (RFC 6066 §3), never IP literals.
            guard tollgate_ssl_set_tlsext_host_name(ssl, host) == 1 else {
                throw Self.error(.tlsConfiguration, "cannot set the server name indication '\(host)'")
            }
        }
        guard SSL_set_fd(ssl, fd) == 1 else {
            throw Self.error(.tlsConfiguration, "cannot attach the socket to the SSL session")
        }
    }

    /// `SSL_VERIFY_NONE`: no CA store, no host name to match; SNI still names the host.
    private func configureEncryptionOnly(fd: Int32, host: String) throws {
        guard SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_2_VERSION), nil) == 1 else {
            throw Self.error(.tlsConfiguration, "cannot require TLS 1.2 or later")
        }
        SSL_set_verify(ssl, SSL_VERIFY_NONE, nil)
        if !Self.isIPAddress(host) {
            guard tollgate_ssl_set_tlsext_host_name(ssl, host) == 1 else {
                throw Self.error(.tlsConfiguration, "cannot set the server name indication '\(host)'")
            }
        }
        guard SSL_set_fd(ssl, fd) == 1 else {
            throw Self.error(.tlsConfiguration, "cannot attach the socket to the SSL session")
        }
    }

    private func handshake(verifiesPeer: Bool) throws {
        let result = SSL_connect(ssl)
        guard result == 1 else {
            // Without verification OpenSSL still records a verify result; it is not the cause.
            let verify = SSL_get_verify_result(ssl)
            if verifiesPeer, verify != Int(X509_V_OK) {
                let reason = X509_verify_cert_error_string(verify).map { String(cString: $0) } ?? "code \(verify)"
                ERR_clear_error()
                throw CryptoError(.tlsCertificateVerification, "the server's certificate was rejected: \(reason)")
            }
            throw ioError(result, during: "handshake", kind: .tlsHandshake)
        }
    }

    /// Reads up to `count` bytes into `buffer` (appending), returning how many were read.
    /// - Throws: `CryptoError` (`.tlsIO` when the peer closed the connection, `.tlsTimeout`).
    public func read(into buffer: inout [UInt8], count: Int) throws -> Int {
        var chunk = [UInt8](repeating: 0, count: max(1, count))
        ERR_clear_error()
        let read = chunk.withUnsafeMutableBytes { bytes in
            SSL_read(ssl, bytes.baseAddress, Int32(clamping: bytes.count))
        }
        guard read > 0 else { throw ioError(read, during: "read", kind: .tlsIO) }
        buffer.append(contentsOf: chunk[0..<Int(read)])
        return Int(read)
    }

    /// Writes all of `bytes`.
    /// - Throws: `CryptoError` (`.tlsIO`, `.tlsTimeout`).
    public func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            ERR_clear_error()
            let written = bytes.withUnsafeBytes { raw in
                SSL_write(ssl, raw.baseAddress.map { $0 + offset }, Int32(clamping: raw.count - offset))
            }
            guard written > 0 else { throw ioError(written, during: "write", kind: .tlsIO) }
            offset += Int(written)
        }
    }

    /// Sends a close_notify alert (best effort: the peer may already be gone). Idempotent.
    public func shutdown() {
        guard !isShutDown else { return }
        isShutDown = true
        ERR_clear_error()
        // 0 means "sent, not yet answered", which is all a client about to close needs.
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
    }

    /// Turns a failed SSL_* return into a `CryptoError` using `SSL_get_error`, errno and the
    /// OpenSSL error queue.
    private func ioError(_ result: Int32, during operation: String, kind: CryptoError.Kind) -> CryptoError {
        let savedErrno = errno
        let code = SSL_get_error(ssl, result)
        switch code {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            // A blocking socket only asks to retry when its SO_RCVTIMEO/SO_SNDTIMEO expired.
            ERR_clear_error()
            return CryptoError(.tlsTimeout, "the \(operation) timed out")
        case SSL_ERROR_ZERO_RETURN:
            ERR_clear_error()
            return CryptoError(.tlsIO, "the server closed the TLS connection during the \(operation)")
        case SSL_ERROR_SYSCALL:
            if ERR_peek_error() == 0 {
                if savedErrno == EAGAIN || savedErrno == EWOULDBLOCK {
                    return CryptoError(.tlsTimeout, "the \(operation) timed out")
                }
                let reason = savedErrno == 0 ? "the connection was closed" : String(cString: strerror(savedErrno))
                return CryptoError(kind, "\(operation) failed: \(reason)")
            }
            return Self.error(kind, "\(operation) failed")
        default:
            return Self.error(kind, "\(operation) failed")
        }
    }

    /// An error whose message ends with every reason in OpenSSL's error queue (which it empties).
    static func error(_ kind: CryptoError.Kind, _ message: String) -> CryptoError {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var text = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &text, text.count)
            reasons.append(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return CryptoError(kind, reasons.isEmpty ? message : message + ": " + reasons.joined(separator: "; "))
    }

    /// True for an IPv4 or IPv6 literal.
    static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
