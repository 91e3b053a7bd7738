/// The JWS signature algorithms Tollgate signs and verifies with.
public enum SignatureAlgorithm: String, Sendable, Equatable, CaseIterable {
    /// ECDSA on P-256 with SHA-256; signatures are 64 raw bytes r‖s (RFC 7518 §3.4).
    case es256 = "ES256"
    /// RSASSA-PKCS1-v1_5 with SHA-256; keys of at least 2048 bits.
    case rs256 = "RS256"
}
