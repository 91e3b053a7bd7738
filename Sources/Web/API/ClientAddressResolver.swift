import HTTPCore
import HTTPRouting

/// The client's address: the socket peer, or — only when that peer is a configured trusted
/// proxy — the right-most `X-Forwarded-For` entry that is not itself a trusted proxy.
/// Entries are taken only when they are IP addresses (canonicalized); walking right to left,
/// the first entry that is not one ends the walk and the peer (the proxy) is the client, so
/// garbage in the header can never become a fresh rate-limit key. Which addresses are trusted
/// proxies (`http.trusted_proxies`) and what reads as an IP address are given by the composition
/// root (`ClientAddressResolver(trustedProxies:)` in App).
public struct ClientAddressResolver: Sendable {
    /// Whether a canonical address is a trusted proxy; nil when none is (the peer is always the client).
    let trusts: (@Sendable (String) -> Bool)?
    /// An `X-Forwarded-For` entry as a canonical IP address, or nil when it is none.
    let canonicalAddress: @Sendable (String) -> String?

    /// - Parameter isTrustedProxy: nil when no proxy is trusted.
    public init(isTrustedProxy: (@Sendable (String) -> Bool)?, canonicalAddress: @escaping @Sendable (String) -> String?) {
        trusts = isTrustedProxy
        self.canonicalAddress = canonicalAddress
    }

    public func address(for request: HTTPRequest, context: RequestContext) -> String {
        address(peer: context.remoteAddress ?? "unknown", headers: request.headers)
    }

    /// The client of a request with `headers` from `peer`. `peerIsTrusted` is what the caller
    /// already knows of the peer (the HTTP server decides it once per connection); nil to check.
    func address(peer: String, headers: HTTPHeaders, peerIsTrusted: Bool? = nil) -> String {
        guard trusts != nil else { return peer }
        var forwarded: Substring?
        var more = false
        for field in headers where HTTPHeaders.equalsIgnoringCase(field.name, "X-Forwarded-For") {
            if forwarded == nil { forwarded = Substring(field.value) } else { more = true }
        }
        // No header: the peer is the client, trusted or not, without asking which.
        guard let first = forwarded else { return peer }
        // The common case, one proxy adding one address, without splitting and joining.
        if !more, !first.utf8.contains(UInt8(ascii: ",")) {
            let hop = HTTPHeaders.trimmingOptionalWhitespace(first)
            guard !hop.isEmpty, peerIsTrusted ?? isTrusted(peer) else { return peer }
            // Trusted or not, the only entry is the client (walking stops at it either way).
            return canonicalAddress(String(hop)) ?? peer
        }
        let joined = headers.values(for: "X-Forwarded-For").joined(separator: ",")
        guard !joined.isEmpty, peerIsTrusted ?? isTrusted(peer) else { return peer }
        let hops = joined.split(separator: ",", omittingEmptySubsequences: false).map { HTTPHeaders.trimmingOptionalWhitespace($0) }
        var leftmost = peer
        for hop in hops.reversed() {
            guard let address = canonicalAddress(String(hop)) else { return peer }
            if !isTrusted(address) { return address }
            leftmost = address
        }
        return leftmost
    }

    func isTrusted(_ address: String) -> Bool {
        trusts?(address) ?? false
    }
}
