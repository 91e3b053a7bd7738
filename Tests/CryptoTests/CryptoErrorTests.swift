import Crypto
import Testing

/// `CryptoError`'s texts: the TLS client's failures keep the `TLS <kind> error:` form callers log
/// and match on (an HTTP client treats a `.tlsIO` whose text says "closed" as the end of a body).
@Suite("Crypto error texts")
struct CryptoErrorTests {
    @Test("TLS failures read `TLS <kind> error: message`, the other kinds `kind: message`")
    func descriptions() {
        let expected: [(CryptoError.Kind, String)] = [
            (.tlsConfiguration, "TLS configuration error: m"), (.tlsCertificateVerification, "TLS certificateVerification error: m"),
            (.tlsHandshake, "TLS handshake error: m"), (.tlsIO, "TLS io error: m"), (.tlsTimeout, "TLS timeout error: m"),
            (.signatureMismatch, "signatureMismatch: m")
        ]
        for (kind, text) in expected { #expect(CryptoError(kind, "m").description == text) }
    }

    @Test("A TLS failure is no JWS format or certificate failure")
    func tlsCategory() {
        for kind in CryptoError.Kind.allCases where kind.rawValue.hasPrefix("tls") {
            #expect(CryptoError(kind, "m").jwsCategory == .verificationFailure)
        }
    }
}
