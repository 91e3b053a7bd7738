import Crypto
import Foundation

/// Time-based one-time passwords as authenticator apps make them (RFC 6238 over RFC 4226):
/// HMAC-SHA1, 6 digits, 30-second steps from the Unix epoch. A code is accepted for the step
/// before, the current one and the one after (clocks drift), and each step only once: the
/// caller keeps the last step used and passes it in.
public enum TOTP {
    /// Seconds per step.
    public static let period: Int64 = 30
    /// Digits per code.
    public static let digits = 6
    /// Random bytes per secret (160 bits, RFC 4226's recommendation).
    public static let secretByteCount = 20

    /// The step `date` falls in.
    public static func step(at date: Date) -> Int64 { Int64(floor(date.timeIntervalSince1970)) / period }

    /// The code of `step` for `secret`.
    /// - Throws: `CryptoError` when OpenSSL fails.
    public static func code(secret: [UInt8], step: Int64) throws -> String {
        var counter = [UInt8](repeating: 0, count: 8)
        for index in 0..<8 { counter[7 - index] = UInt8(truncatingIfNeeded: UInt64(bitPattern: step) >> (8 * UInt64(index))) }
        let mac = try HMACSHA1.authenticationCode(for: counter, key: secret)
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let binary = (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        let value = binary % 1_000_000
        let text = String(value)
        return String(repeating: "0", count: digits - text.count) + text
    }

    /// The step whose code `code` is (within one step of `now`) and which is later than
    /// `lastUsedStep`; nil when none is: a wrong code, or one already used.
    /// - Throws: `CryptoError` when OpenSSL fails.
    public static func matchingStep(_ code: String, secret: [UInt8], now: Date, after lastUsedStep: Int64?) throws -> Int64? {
        let typed = code.filter { !$0.isWhitespace }
        guard typed.count == digits, typed.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        let current = step(at: now)
        var found: Int64?
        for candidate in (current - 1)...(current + 1) {
            // Every candidate is computed and compared, so the time taken says nothing of which matched.
            let expected = try Self.code(secret: secret, step: candidate)
            if ConstantTime.equals(Array(expected.utf8), Array(typed.utf8)), found == nil { found = candidate }
        }
        guard let found, found > (lastUsedStep ?? Int64.min) else { return nil }
        return found
    }

    /// The `otpauth://` URI an authenticator app scans: issuer and account name, the base32 secret.
    public static func provisioningURI(secret: [UInt8], account: String, issuer: String) -> String {
        func escape(_ text: String) -> String {
            text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~@"))) ?? text
        }
        return "otpauth://totp/\(escape(issuer)):\(escape(account))?secret=\(Base32.encode(secret))&issuer=\(escape(issuer))"
            + "&algorithm=SHA1&digits=\(digits)&period=\(period)"
    }
}
