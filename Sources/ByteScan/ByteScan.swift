/// Word-at-a-time tests over UTF-8 bytes: whether a buffer holds any byte a writer must treat
/// specially (a control byte; a quote or backslash in a JSON string). Eight bytes are tested
/// with a few integer operations instead of a comparison per byte, so the common case (an id, a
/// token, a header value with nothing to escape) is checked and then copied whole.
///
/// Each test is exact: true if and only if such a byte is present. A caller that gets true
/// takes its byte-by-byte path, which decides what each byte becomes.
public enum ByteScan {
    /// Whether any byte is below 0x20 (NUL, CR, LF, TAB and the other C0 controls).
    @inlinable
    public static func containsControl(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        scan(bytes, word: { hasByteBelow0x20($0) }, byte: { $0 < 0x20 })
    }

    /// Whether any byte is below 0x20, DEL (0x7F), `"` or `\`: a string holding none of them is
    /// written into a JSON string literal as it is.
    @inlinable
    public static func needsJSONEscape(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        scan(
            bytes,
            word: { word in
                hasByteBelow0x20(word) || hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x5C))
                    || hasZeroByte(word ^ (ones &* 0x7F))
            },
            byte: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F })
    }

    /// `word` tests eight bytes at a time, `byte` the tail of fewer than eight.
    @inlinable @inline(__always)
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>, word: (UInt64) -> Bool, byte: (UInt8) -> Bool) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let count = bytes.count
        var offset = 0
        let raw = UnsafeRawPointer(base)
        while offset + 8 <= count {
            if word(raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) { return true }
            offset += 8
        }
        while offset < count {
            if byte(base[offset]) { return true }
            offset += 1
        }
        return false
    }

    /// 0x01 in every byte.
    @usableFromInline static let ones: UInt64 = 0x0101_0101_0101_0101
    /// 0x80 in every byte.
    @usableFromInline static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Whether a byte of `word` is zero: subtracting one borrows into the high bit of exactly
    /// the bytes that were zero (or, after such a borrow, of bytes above one); `~word` keeps only
    /// bytes whose own high bit was clear, so the result is non-zero exactly when one was zero.
    @inlinable @inline(__always)
    static func hasZeroByte(_ word: UInt64) -> Bool {
        (word &- ones) & ~word & highBits != 0
    }

    /// Whether a byte of `word` is below 0x20: the same borrow argument with 0x20 subtracted
    /// from each byte (exact for bounds up to 0x80).
    @inlinable @inline(__always)
    static func hasByteBelow0x20(_ word: UInt64) -> Bool {
        (word &- ones &* 0x20) & ~word & highBits != 0
    }
}
