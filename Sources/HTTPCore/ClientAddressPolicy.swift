/// Who the client behind a connection is, for the per-client connection cap, when some socket
/// peers are trusted proxies (`http.trusted_proxies`) that carry many clients' requests.
///
/// A trusted proxy is not a client: its connections count only toward the server-wide cap. Each
/// of its requests counts, while in flight, toward the cap of the client it forwards.
public protocol ClientAddressPolicy: Sendable {
    /// Whether `peer` (the socket peer's address, as `RequestInfo.remoteAddress` gives it) is a
    /// trusted proxy.
    func isTrustedProxy(_ peer: String) -> Bool

    /// The client a trusted proxy's request comes from (for instance the right-most
    /// `X-Forwarded-For` entry that is not itself a trusted proxy); `peer` when it names none.
    /// Asked only for a `peer` that `isTrustedProxy(_:)` accepted, which need not be asked again.
    func forwardedClient(peer: String, headers: HTTPHeaders) -> String
}
