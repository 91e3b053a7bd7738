import Configuration
import HTTPServer

/// The client's address: the socket peer, or — only when that peer is a configured trusted
/// proxy — the right-most `X-Forwarded-For` entry that is not itself a trusted proxy.
public struct ClientAddressResolver: Sendable {
    let trustedProxies: [CIDR]

    public init(trustedProxies: [CIDR]) { self.trustedProxies = trustedProxies }

    public func address(for request: HTTPRequest, context: RequestContext) -> String {
        let peer = context.remoteAddress ?? "unknown"
        let forwarded = request.headers.values(for: "X-Forwarded-For").joined(separator: ",")
        guard isTrusted(peer), !forwarded.isEmpty else { return peer }
        let hops = forwarded.split(separator: ",").map { String(HTTPHeaders.trimmingOptionalWhitespace($0)) }.filter { !$0.isEmpty }
        for hop in hops.reversed() where !isTrusted(hop) {
            return hop
        }
        return hops.first ?? peer
    }

    private func isTrusted(_ address: String) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }
}
