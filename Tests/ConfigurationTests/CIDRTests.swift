import Testing
@testable import Configuration

@Suite("CIDR")
struct CIDRTests {
    @Test("IPv4 networks contain their addresses only")
    func ipv4() throws {
        let network = try #require(CIDR("10.1.0.0/16"))
        #expect(network.contains("10.1.255.3"))
        #expect(!network.contains("10.2.0.1"))
        #expect(network.contains("::ffff:10.1.2.3"))
        #expect(!network.contains("not-an-ip"))
        #expect(CIDR("10.1.2.3/8")?.description == "10.0.0.0/8")
        #expect(CIDR("192.168.0.9")?.prefixLength == 32)
    }

    @Test("IPv6 networks contain their addresses only")
    func ipv6() throws {
        let network = try #require(CIDR("2001:db8::/32"))
        #expect(network.contains("2001:db8:ffff::1"))
        #expect(!network.contains("2001:db9::1"))
        #expect(!network.contains("10.0.0.1"))
        #expect(CIDR("::1")?.contains("::1") == true)
    }

    @Test("malformed networks are rejected", arguments: ["", "/8", "10.0.0.0/", "10.0.0.0/33", "::/129", "10.0.0.0/8/8", "10.0.0.0/-1", "10.0.0.0/ 8", "host.example"])
    func malformed(text: String) {
        #expect(CIDR(text) == nil)
    }
}
