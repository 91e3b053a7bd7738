import Configuration
import Web

extension ClientAddressResolver {
    /// The resolver for `http.trusted_proxies`: a peer in one of `trustedProxies` may name the
    /// client in `X-Forwarded-For`.
    public init(trustedProxies: [CIDR]) {
        let trusts: (@Sendable (String) -> Bool)?
        if trustedProxies.isEmpty {
            trusts = nil
        } else {
            trusts = { address in trustedProxies.contains { $0.contains(address) } }
        }
        self.init(isTrustedProxy: trusts, canonicalAddress: { CIDR.canonicalAddress($0) })
    }
}
