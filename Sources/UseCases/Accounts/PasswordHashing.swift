import Crypto
import Domain

/// The password hash work a sign-in does, injected so tests can count it (every path of a
/// password sign-in runs it once: `PasswordCheck`). `PasswordWork` is the real one (scrypt).
public protocol PasswordHashing: Sendable {
    /// Whether `password` matches `stored` (false for a malformed stored string).
    func verify(_ password: String, against stored: String) async -> Bool
}

/// scrypt on a Dispatch thread (`PasswordWork`).
public struct ScryptPasswords: PasswordHashing {
    public init() {}

    public func verify(_ password: String, against stored: String) async -> Bool {
        await PasswordWork.verify(password, against: stored)
    }

    /// A stored hash no password matches, checked when the address has no password to check so
    /// that every answer costs one scrypt (no oracle by time). Made once, with the hasher's own
    /// parameters.
    static let decoy: String = (try? PasswordHasher().hash(password: (try? OpaqueToken.generate()) ?? "decoy")) ?? ""
}
