import Foundation
internal import COpenSSL

/// Comparisons whose running time depends only on the lengths of the inputs.
public enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes. Different lengths return `false` at once (the length
    /// is not secret); equal lengths are compared with `CRYPTO_memcmp`.
    public static func equals(_ a: some ContiguousBytes, _ b: some ContiguousBytes) -> Bool {
        a.withUnsafeBytes { lhs in
            b.withUnsafeBytes { rhs in
                guard lhs.count == rhs.count else { return false }
                guard lhs.count > 0 else { return true }
                return CRYPTO_memcmp(lhs.baseAddress, rhs.baseAddress, lhs.count) == 0
            }
        }
    }
}
