/// The statement cache's key: the SQL text, hashed over its length and two 32-byte samples of it
/// (the middle and the end) instead of every byte. Every query hashes its text to find its prepared
/// statement, and a redemption's texts run to hundreds of bytes; keys whose samples agree still
/// compare their whole text, so a shared sample costs only a longer probe, never a wrong statement.
struct StatementKey: Hashable {
    let sql: String

    static func == (lhs: StatementKey, rhs: StatementKey) -> Bool { lhs.sql == rhs.sql }

    func hash(into hasher: inout Hasher) {
        let sampled: Void? = sql.utf8.withContiguousStorageIfAvailable { bytes in
            let count = bytes.count
            hasher.combine(count)
            let middle = count / 2
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[middle..<min(count, middle + 32)])))
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[max(0, count - 32)..<count])))
        }
        if sampled == nil { hasher.combine(sql) }
    }
}
