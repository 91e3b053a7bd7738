/// How a `TLSClientConnection` verifies its peer.
///
/// By default verification is on: the peer's chain must lead to a trusted root and its
/// certificate must match the host name (or IP address) the caller connected to. The trusted
/// roots are the system's CA store unless `caFile` names a PEM file to trust instead. TLS 1.2 is
/// the minimum.
///
/// `verifiesPeer = false` encrypts without authenticating the server (no chain, no host name
/// check). It exists only for PostgreSQL's `sslmode=require`, whose documented meaning is exactly
/// that; everything else keeps the default.
public struct TLSClientConfiguration: Sendable, Equatable {
    /// A PEM file of CA certificates to trust instead of the system store; nil for the system store.
    public var caFile: String?
    /// Whether the peer's certificate chain and host name are verified (default true). False
    /// protects against passive eavesdropping only: anyone on the path can impersonate the server.
    public var verifiesPeer: Bool

    /// Verifies against the system CA store, or against `caFile` when given.
    public init(caFile: String? = nil) {
        self.caFile = caFile
        self.verifiesPeer = true
    }

    /// Encrypts without verifying the peer at all (PostgreSQL's `sslmode=require`).
    public static var encryptionOnly: TLSClientConfiguration {
        var configuration = TLSClientConfiguration()
        configuration.verifiesPeer = false
        return configuration
    }
}
