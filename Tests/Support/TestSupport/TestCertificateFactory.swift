import Foundation

/// Test CAs and server certificates made with the openssl command-line tool (off the pool), for
/// TLS tests against real servers (postgres, aiosmtpd).
public enum TestCertificateFactory {
    /// Makes a self-signed CA, `<name>.pem` and `<name>.key` in `directory`, valid two days.
    /// - Throws: `ChildProcessError` when openssl is missing or fails.
    public static func makeCA(_ name: String, commonName: String, in directory: String) async throws {
        try await openssl(
            ["req", "-x509"] + ecKey + [
                "-keyout", "\(directory)/\(name).key", "-out", "\(directory)/\(name).pem", "-days", "2",
                "-subj", "/CN=\(commonName)",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"
            ])
    }

    /// Makes `server.pem` and `server.key` in `directory`: a certificate for `localhost` (DNS name
    /// only, no IP address) signed by the CA `<ca>.pem` / `<ca>.key` there.
    /// - Throws: `ChildProcessError` when openssl is missing or fails.
    public static func makeLocalhostServer(signedBy ca: String, in directory: String) async throws {
        try await openssl(
            ["req"] + ecKey + [
                "-keyout", "\(directory)/server.key", "-out", "\(directory)/server.csr", "-subj", "/CN=localhost"
            ])
        try "subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
            .write(toFile: "\(directory)/server.ext", atomically: true, encoding: .utf8)
        try await openssl([
            "x509", "-req", "-in", "\(directory)/server.csr", "-CA", "\(directory)/\(ca).pem", "-CAkey", "\(directory)/\(ca).key",
            "-CAcreateserial", "-out", "\(directory)/server.pem", "-days", "2", "-extfile", "\(directory)/server.ext"
        ])
    }

    /// A fresh P-256 key, unencrypted.
    private static let ecKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]

    /// Runs the openssl command-line tool off the concurrency pool.
    private static func openssl(_ arguments: [String]) async throws {
        guard let path = ChildProcessRunner.locate("openssl") else {
            throw ChildProcessError(description: "openssl is not installed; run scripts/install-test-tools")
        }
        let result = try await ChildProcessRunner.run(path, arguments)
        guard result.status == 0, !result.endedBySignal else {
            throw ChildProcessError(description: "openssl \(arguments.first ?? "") failed with \(result.status): \(result.stderrText)")
        }
    }
}
