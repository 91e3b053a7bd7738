import Crypto
import Dispatch

/// scrypt is slow on purpose (tens of milliseconds): it runs on a Dispatch thread, never on
/// the request's executor thread and never inside a database transaction.
public enum PasswordWork {
    /// The stored form of `password`.
    public static func hash(_ password: String) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try PasswordHasher().hash(password: password) }) }
        }
    }

    /// Whether `password` matches `stored` (false for a malformed stored string).
    public static func verify(_ password: String, against stored: String) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: (try? PasswordHasher().verify(password: password, against: stored)) ?? false)
            }
        }
    }
}
