import HTTPCore

/// The HTTP server counts connections per client with the same resolver the rate limits use, so
/// a trusted proxy is never a client and its requests count for the client it forwards.
extension ClientAddressResolver: ClientAddressPolicy {
    /// Whether `peer` lies in `http.trusted_proxies`.
    public func isTrustedProxy(_ peer: String) -> Bool {
        isTrusted(peer)
    }

    /// The client `address(for:context:)` gives for a request with these headers from `peer`, a
    /// trusted proxy (the server asks only for those: its trust is not checked again).
    public func forwardedClient(peer: String, headers: HTTPHeaders) -> String {
        address(peer: peer, headers: headers, peerIsTrusted: true)
    }
}
