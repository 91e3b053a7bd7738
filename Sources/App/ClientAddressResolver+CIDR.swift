import Configuration
import Web

extension ClientAddressResolver {
    /// The resolver for `http.trusted_proxies`: a peer in one of `trustedProxies` may name the
    /// client in `X-Forwarded-For`.
    public init(trustedProxies: [CIDR]) {
        self.init(isTrustedProxy: { address in trustedProxies.contains { $0.contains(address) } }, canonicalAddress: CIDR.canonicalAddress)
    }
}
