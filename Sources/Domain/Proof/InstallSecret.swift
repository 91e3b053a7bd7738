import Crypto
import Foundation

/// An install secret (`app_user_secret`, API.md "Who may act for an account"): 22–128 characters
/// `[A-Za-z0-9_-]`, a random value of at least 128 bits one install keeps. Only its unkeyed SHA-256
/// is ever stored or compared (the value has enough entropy that no key is needed); the text is
/// never kept, logged or passed on.
public struct InstallSecret: Sendable, Equatable {
    /// Hex SHA-256 of the secret: what is stored and looked up.
    public let hash: String

    /// The shortest and longest accepted secret.
    public static let lengths = 22...128

    /// Nil when `text` is not 22–128 characters of `[A-Za-z0-9_-]` (the edge answers `400`).
    public init?(_ text: String) {
        guard Self.lengths.contains(text.utf8.count), text.utf8.allSatisfy(Self.isAllowed) else { return nil }
        guard let digest = try? SHA256.hash(Array(text.utf8)) else { return nil }
        hash = Hex.encode(digest)
    }

    /// A secret known by its stored hash.
    public init(hash: String) {
        self.hash = hash
    }

    static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }
}
