internal import COpenSSL
import Synchronization

/// Cryptographically secure random bytes from OpenSSL's DRBG (`RAND_bytes`).
///
/// Small draws (a session's id and secrets, a code, an id) are served from a pool of 4 KiB filled
/// by one `RAND_bytes` call: a call costs about 7,000 instructions whatever its size (the DRBG's
/// lock and reseed checks), and a redemption makes one. Bytes handed out are zeroed in the pool at
/// once, so its memory never holds what was already used, only what is yet to be.
public enum SecureRandom {
    /// Draws up to this size come from the pool; larger ones straight from `RAND_bytes`.
    static let pooledLimit = 256
    static let poolSize = 4096

    /// `count` random bytes.
    /// - Throws: `CryptoError.randomFailure` if the generator fails, `.invalidParameter` for a negative count.
    public static func bytes(count: Int) throws -> [UInt8] {
        guard count >= 0, count <= Int(Int32.max) else {
            throw CryptoError(.invalidParameter, "random byte count \(count) is out of range")
        }
        guard count > 0 else { return [] }
        if count <= pooledLimit {
            return try [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
                try take(into: out)
                initialized = count
            }
        }
        var out = [UInt8](repeating: 0, count: count)
        try out.withUnsafeMutableBufferPointer { try fill($0) }
        return out
    }

    /// The pool's bytes, for the life of the process; read and written only under `poolNext`.
    private nonisolated(unsafe) static let pool = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: poolSize)
    /// Where the pool's unused bytes start (`poolSize`: none left).
    private static let poolNext = Mutex(poolSize)

    /// Copies the pool's next `out.count` bytes into `out` and zeroes them there, refilling the pool
    /// first when too few are left.
    private static func take(into out: UnsafeMutableBufferPointer<UInt8>) throws {
        try poolNext.withLock { next in
            if poolSize - next < out.count {
                try fill(pool)
                next = 0
            }
            let taken = UnsafeMutableBufferPointer(rebasing: pool[next..<next + out.count])
            _ = out.initialize(fromContentsOf: taken)
            taken.update(repeating: 0)
            next += out.count
        }
    }

    /// Fills `buffer` from `RAND_bytes`.
    private static func fill(_ buffer: UnsafeMutableBufferPointer<UInt8>) throws {
        guard RAND_bytes(buffer.baseAddress, Int32(buffer.count)) == 1 else { throw CryptoError.openSSL(.randomFailure, "RAND_bytes") }
    }
}
