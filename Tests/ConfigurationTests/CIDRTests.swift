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

    @Test(
        "malformed networks are rejected",
        arguments: ["", "/8", "10.0.0.0/", "10.0.0.0/33", "::/129", "10.0.0.0/8/8", "10.0.0.0/-1", "10.0.0.0/ 8", "host.example"])
    func malformed(text: String) {
        #expect(CIDR(text) == nil)
    }
}

@Suite("CIDR address checks")
struct CIDRAddressTests {
    @Test("canonicalAddress takes exact IPv4/IPv6 literals only, in inet_ntop form")
    func canonical() {
        #expect(CIDR.canonicalAddress("203.0.113.9") == "203.0.113.9")
        #expect(CIDR.canonicalAddress("2001:DB8:0:0::1") == "2001:db8::1")
        #expect(CIDR.canonicalAddress("::FFFF:10.1.2.3") == "::ffff:10.1.2.3")
        for garbage in ["", "garbage", "1.2.3.4:80", "[::1]", "01.2.3.4", "1.2.3.4\u{0}", "1.2.3.4\u{0}junk", "::1\u{0}x"] {
            #expect(CIDR.canonicalAddress(garbage) == nil, "\(garbage.debugDescription)")
        }
    }

    @Test("An address with a NUL is in no network (inet_pton would stop at the NUL)")
    func nulIsNotTruncated() {
        #expect(CIDR("10.0.0.0/8")!.contains("10.1.2.3\u{0}garbage") == false)
        #expect(CIDR("10.0.0.0/8\u{0}") == nil)
    }
}
