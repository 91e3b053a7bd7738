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
        let peer = context.remoteAddress ?? "unknown"
        guard trusts != nil else { return peer }
        let values = request.headers.values(for: "X-Forwarded-For")
        // The common case, one proxy adding one address, without splitting and joining.
        if values.count == 1, !values[0].utf8.contains(UInt8(ascii: ",")) {
            let hop = HTTPHeaders.trimmingOptionalWhitespace(Substring(values[0]))
            guard !hop.isEmpty, isTrusted(peer) else { return peer }
            // Trusted or not, the only entry is the client (walking stops at it either way).
            return canonicalAddress(String(hop)) ?? peer
        }
        let forwarded = values.joined(separator: ",")
        guard isTrusted(peer), !forwarded.isEmpty else { return peer }
        let hops = forwarded.split(separator: ",", omittingEmptySubsequences: false).map { HTTPHeaders.trimmingOptionalWhitespace($0) }
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
