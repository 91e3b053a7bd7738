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
        scan(bytes) { hasByteBelow0x20($0) }
    }

    /// Whether any byte is below 0x20, DEL (0x7F), `"` or `\`: a string holding none of them is
    /// written into a JSON string literal as it is.
    @inlinable
    public static func needsJSONEscape(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        scan(bytes) { word in
            hasByteBelow0x20(word) || hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x5C))
                || hasZeroByte(word ^ (ones &* 0x7F))
        }
    }

    /// `word` tests eight bytes at a time, and is the only test: the bytes after the last whole
    /// word are tested as the word ending at the buffer's end (re-testing a few bytes already
    /// passed), and a buffer shorter than a word is tested copied over `plain`, bytes no test
    /// stops at. No byte outside the buffer is read.
    @inlinable @inline(__always)
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>, word: (UInt64) -> Bool) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let count = bytes.count
        let raw = UnsafeRawPointer(base)
        guard count >= 8 else {
            var padded = plain
            withUnsafeMutableBytes(of: &padded) { $0.baseAddress!.copyMemory(from: raw, byteCount: count) }
            return word(padded)
        }
        var offset = 0
        while offset + 8 <= count {
            if word(raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) { return true }
            offset += 8
        }
        return offset < count && word(raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))
    }

    /// Eight `A`s: a byte none of the tests stops at.
    @usableFromInline static let plain: UInt64 = 0x4141_4141_4141_4141

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
