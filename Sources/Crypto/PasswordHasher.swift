import Foundation

/// scrypt password hashing with self-describing stored strings:
/// `$scrypt$ln=15,r=8,p=1$<base64 salt>$<base64 hash>` (standard base64 with padding).
public struct PasswordHasher: Sendable {
    /// scrypt cost parameters: N = 2^`logN`, block size `r`, parallelism `p`.
    public struct Parameters: Sendable, Equatable {
        /// log2 of the CPU/memory cost N.
        public var logN: Int
        /// Block size.
        public var r: Int
        /// Parallelism.
        public var p: Int

        /// Creates a parameter set (validated when used).
        public init(logN: Int, r: Int, p: Int) {
            self.logN = logN
            self.r = r
            self.p = p
        }

        /// N = 2^15, r = 8, p = 1 (about 32 MiB of memory per hash).
        public static let recommended = Parameters(logN: 15, r: 8, p: 1)
    }

    static let saltByteCount = 16
    static let hashByteCount = 32
    /// Bounds enforced on stored strings so a hostile or corrupt row cannot demand huge work.
    static let logNRange = 1...20
    static let rRange = 1...32
    static let pRange = 1...16

    /// The parameters new hashes are made with.
    public let parameters: Parameters

    /// A hasher producing hashes with `parameters` (default: `.recommended`).
    public init(parameters: Parameters = .recommended) {
        self.parameters = parameters
    }

    /// Hashes `password` with a fresh random salt.
    /// - Throws: `CryptoError.invalidParameter` for out-of-range parameters, `.randomFailure`, `.openSSLFailure`.
    public func hash(password: String) throws -> String {
        try Self.check(parameters)
        let salt = try SecureRandom.bytes(count: Self.saltByteCount)
        let derived = try Self.derive(password: password, salt: salt, parameters: parameters, length: Self.hashByteCount)
        return "$scrypt$ln=\(parameters.logN),r=\(parameters.r),p=\(parameters.p)$\(Base64.encode(salt))$\(Base64.encode(derived))"
    }

    /// Whether `password` matches `stored`, compared in constant time.
    /// - Throws: `CryptoError.invalidPasswordHash` if `stored` is not a valid scrypt string.
    public func verify(password: String, against stored: String) throws -> Bool {
        let record = try StoredHash(parsing: stored)
        let derived = try Self.derive(password: password, salt: record.salt, parameters: record.parameters, length: record.hash.count)
        return ConstantTime.equals(derived, record.hash)
    }

    /// Whether `stored` should be replaced on next login: unparsable, or any cost parameter or the
    /// hash length below this hasher's.
    public func needsRehash(_ stored: String) -> Bool {
        guard let record = try? StoredHash(parsing: stored) else { return true }
        return record.parameters.logN < parameters.logN || record.parameters.r < parameters.r
            || record.parameters.p < parameters.p || record.hash.count < Self.hashByteCount
    }

    static func check(_ parameters: Parameters) throws {
        guard logNRange.contains(parameters.logN), rRange.contains(parameters.r), pRange.contains(parameters.p) else {
            throw CryptoError(.invalidParameter, "scrypt parameters ln=\(parameters.logN),r=\(parameters.r),p=\(parameters.p) are out of range")
        }
    }

    private static func derive(password: String, salt: [UInt8], parameters: Parameters, length: Int) throws -> [UInt8] {
        try KDF.scrypt(
            password: Array(password.utf8), salt: salt, n: UInt64(1) << UInt64(parameters.logN),
            r: UInt32(parameters.r), p: UInt32(parameters.p), outputByteCount: length)
    }

    /// A parsed stored string.
    struct StoredHash {
        let parameters: Parameters
        let salt: [UInt8]
        let hash: [UInt8]

        init(parsing stored: String) throws {
            func bad(_ why: String) -> CryptoError { CryptoError(.invalidPasswordHash, "stored password hash \(why)") }
            guard stored.utf8.count <= 512 else { throw bad("is too long") }
            let fields = stored.split(separator: "$", omittingEmptySubsequences: false)
            guard fields.count == 5, fields[0].isEmpty, fields[1] == "scrypt" else { throw bad("is not in $scrypt$ form") }
            var values: [String: Int] = [:]
            for pair in fields[2].split(separator: ",", omittingEmptySubsequences: false) {
                let parts = pair.split(separator: "=", omittingEmptySubsequences: false)
                guard parts.count == 2, ["ln", "r", "p"].contains(parts[0]), values[String(parts[0])] == nil,
                    parts[1].utf8.count <= 3, parts[1].utf8.allSatisfy({ (48...57).contains($0) }),
                    let number = Int(parts[1])
                else { throw bad("has malformed parameters") }
                values[String(parts[0])] = number
            }
            guard let logN = values["ln"], let r = values["r"], let p = values["p"] else { throw bad("lacks ln, r or p") }
            let parameters = Parameters(logN: logN, r: r, p: p)
            do { try PasswordHasher.check(parameters) } catch { throw bad("has out-of-range parameters") }
            guard let salt = try? Base64.decode(String(fields[3])), (8...64).contains(salt.count) else { throw bad("has a malformed salt") }
            guard let hash = try? Base64.decode(String(fields[4])), (16...64).contains(hash.count) else { throw bad("has a malformed hash") }
            self.parameters = parameters
            self.salt = salt
            self.hash = hash
        }
    }
}
