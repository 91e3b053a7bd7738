/// The statement cache's key: the SQL text, hashed over its length and two 32-byte samples of it
/// (the middle and the end) instead of every byte. Every query hashes its text to find its prepared
/// statement, and a redemption's texts run to hundreds of bytes; keys whose samples agree still
/// compare their whole text, so a shared sample costs only a longer probe, never a wrong statement.
/// The samples are folded into one word by multiplying and rotating eight bytes at a time, and only
/// that word goes through `Hasher` (SipHash over the 72 sampled bytes cost ~450 instructions a
/// lookup; the keys are this program's own SQL, so nobody chooses them to collide).
struct StatementKey: Hashable {
    let sql: String

    static func == (lhs: StatementKey, rhs: StatementKey) -> Bool { lhs.sql == rhs.sql }

    func hash(into hasher: inout Hasher) {
        let sampled: Void? = sql.utf8.withContiguousStorageIfAvailable { bytes in
            let count = bytes.count
            let middle = count / 2
            var folded = UInt64(truncatingIfNeeded: count)
            Self.fold(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[middle..<min(count, middle + 32)])), into: &folded)
            Self.fold(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[max(0, count - 32)..<count])), into: &folded)
            hasher.combine(folded)
        }
        if sampled == nil { hasher.combine(sql) }
    }

    /// Mixes `bytes` into `word`, eight at a time (the last few one by one).
    private static func fold(_ bytes: UnsafeRawBufferPointer, into word: inout UInt64) {
        var offset = 0
        while offset + 8 <= bytes.count {
            mix(bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self), into: &word)
            offset += 8
        }
        while offset < bytes.count {
            mix(UInt64(bytes[offset]), into: &word)
            offset += 1
        }
    }

    @inline(__always)
    private static func mix(_ value: UInt64, into word: inout UInt64) {
        word = ((word ^ value) &* 0x9E37_79B9_7F4A_7C15).rotated(by: 29)
    }
}

extension UInt64 {
    @inline(__always)
    fileprivate func rotated(by bits: UInt64) -> UInt64 { (self << bits) | (self >> (64 - bits)) }
}
