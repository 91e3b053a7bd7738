/// How a `TLSClientConnection` verifies its peer.
///
/// Verification is always on: the peer's chain must lead to a trusted root and its certificate
/// must match the host name (or IP address) the caller connected to. The trusted roots are the
/// system's CA store unless `caFile` names a PEM file to trust instead. TLS 1.2 is the minimum.
public struct TLSClientConfiguration: Sendable, Equatable {
    /// A PEM file of CA certificates to trust instead of the system store; nil for the system store.
    public var caFile: String?

    /// Verifies against the system CA store, or against `caFile` when given.
    public init(caFile: String? = nil) {
        self.caFile = caFile
    }
}
