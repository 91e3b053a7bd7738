#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IPv4 or IPv6 network in CIDR notation (`10.0.0.0/8`, `2001:db8::/32`); a bare address is a
/// single host. Used for `http.trusted_proxies`.
public struct CIDR: Sendable, Equatable, CustomStringConvertible {
    /// The network address: 4 bytes (IPv4) or 16 bytes (IPv6), host bits cleared.
    public let address: [UInt8]
    /// The number of leading bits that must match.
    public let prefixLength: Int

    /// Parses `a.b.c.d/n` (n ≤ 32), `x:y::z/n` (n ≤ 128), or a bare address; nil when malformed.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = parts.first, let bytes = CIDR.parseAddress(String(first)) else { return nil }
        let maximum = bytes.count * 8
        var length = maximum
        if parts.count == 2 {
            let digits = parts[1]
            guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                let parsed = Int(digits), parsed <= maximum
            else { return nil }
            length = parsed
        }
        self.address = CIDR.masked(bytes, prefixLength: length)
        self.prefixLength = length
    }

    /// Whether `address` (textual IPv4 or IPv6) lies in this network. An IPv4-mapped IPv6
    /// address (`::ffff:10.1.2.3`) matches IPv4 networks.
    public func contains(_ address: String) -> Bool {
        guard var bytes = CIDR.parseAddress(address) else { return false }
        if bytes.count == 16, self.address.count == 4,
            bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF
        {
            bytes = Array(bytes[12..<16])
        }
        guard bytes.count == self.address.count else { return false }
        // Compared in place: this runs for every request behind a proxy.
        for index in bytes.indices {
            let bitsHere = max(0, min(8, prefixLength - index * 8))
            let mask: UInt8 = bitsHere == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - bitsHere))
            if bytes[index] & mask != self.address[index] { return false }
        }
        return true
    }

    /// `text` when it is exactly an IPv4 or IPv6 address (`inet_pton`: no port, brackets, zone
    /// or names), in the canonical form `inet_ntop` gives (`2001:DB8:0::1` → `2001:db8::1`), so
    /// one address cannot pass as many; nil otherwise.
    public static func canonicalAddress(_ text: String) -> String? {
        guard let bytes = parseAddress(text) else { return nil }
        // glibc's inet_pton takes IPv4 only as four decimal parts without leading zeros, which is
        // already the canonical form.
        if bytes.count == 4 { return text }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let formatted = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        guard formatted != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The network in CIDR notation.
    public var description: String {
        "\(CIDR.format(address))/\(prefixLength)"
    }

    private static func masked(_ bytes: [UInt8], prefixLength: Int) -> [UInt8] {
        var result = bytes
        for index in result.indices {
            let bitsHere = max(0, min(8, prefixLength - index * 8))
            result[index] &= bitsHere == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - bitsHere))
        }
        return result
    }

    /// `inet_pton` for IPv4 then IPv6; the result is 4 or 16 bytes.
    private static func parseAddress(_ text: String) -> [UInt8]? {
        // No NUL: inet_pton would read "1.2.3.4\0junk" as a valid C string "1.2.3.4".
        guard !text.isEmpty, text.utf8.count <= 45, !text.utf8.contains(0) else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }

    private static func format(_ bytes: [UInt8]) -> String {
        if bytes.count == 4 {
            return bytes.map { String($0) }.joined(separator: ".")
        }
        var groups: [String] = []
        for index in stride(from: 0, to: bytes.count, by: 2) {
            groups.append(String(UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]), radix: 16))
        }
        return groups.joined(separator: ":")
    }
}
