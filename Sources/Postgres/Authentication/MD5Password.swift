import Crypto

/// PostgreSQL's `md5` password answer: `"md5" + hex(md5(hex(md5(password + user)) + salt))`.
enum MD5Password {
    /// The PasswordMessage text for `user`, `password` and the server's 4-byte `salt`.
    /// - Throws: `PostgresError` (`.authentication`) when MD5 is unavailable (FIPS mode).
    static func answer(user: String, password: String, salt: [UInt8]) throws -> String {
        do {
            let inner = Hex.encode(try MD5.hash(Array((password + user).utf8)))
            return "md5" + Hex.encode(try MD5.hash(Array(inner.utf8) + salt))
        } catch {
            throw PostgresError(.authentication, "md5 authentication: \(error)")
        }
    }
}
