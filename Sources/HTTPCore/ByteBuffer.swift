/// A growable byte buffer with separate read and write positions, used for everything a
/// connection receives. Bytes in `readerIndex..<writerIndex` are unread.
///
/// Storage is allocated lazily and starts small so that idle connections stay cheap; it
/// grows by doubling and is compacted (unread bytes moved to the front) before growing.
struct ByteBuffer {
    /// Backing bytes; `storage.count` is the capacity.
    private(set) var storage: [UInt8] = []
    private(set) var readerIndex = 0
    private(set) var writerIndex = 0

    /// The initial allocation on first use.
    static let initialCapacity = 4096

    init() {}

    /// A buffer holding `bytes` (tests).
    init(_ bytes: some Collection<UInt8>) {
        storage = Array(bytes)
        writerIndex = storage.count
    }

    var readableBytes: Int { writerIndex - readerIndex }
    var isEmpty: Bool { readerIndex == writerIndex }

    /// Marks `count` unread bytes as consumed.
    mutating func moveReaderIndex(by count: Int) {
        readerIndex += count
        if readerIndex == writerIndex {
            readerIndex = 0
            writerIndex = 0
        }
    }

    /// Appends bytes (tests and body copies).
    mutating func append(_ bytes: some Collection<UInt8>) {
        reserveWritable(bytes.count)
        storage.replaceSubrange(writerIndex..<(writerIndex + bytes.count), with: bytes)
        writerIndex += bytes.count
    }

    /// Makes room for at least `minimum` more bytes after `writerIndex`.
    mutating func reserveWritable(_ minimum: Int) {
        if storage.count - writerIndex >= minimum { return }
        // Compact first: moving unread bytes to the front may be enough.
        if readerIndex > 0 {
            let unread = readableBytes
            if unread > 0 {
                storage.withUnsafeMutableBufferPointer { buffer in
                    guard let base = buffer.baseAddress else { return }
                    (base).update(from: base + readerIndex, count: unread)
                }
            }
            readerIndex = 0
            writerIndex = unread
            if storage.count - writerIndex >= minimum { return }
        }
        var capacity = max(storage.count, ByteBuffer.initialCapacity)
        while capacity - writerIndex < minimum { capacity *= 2 }
        storage.append(contentsOf: repeatElement(0, count: capacity - storage.count))
    }

    /// Lets `body` fill the writable space (at least `minimum` bytes, reserved first) and
    /// advances `writerIndex` by the count it returns when positive.
    mutating func writeWithUnsafeMutableBytes(
        minimumWritable minimum: Int, _ body: (UnsafeMutableRawBufferPointer) -> Int
    ) -> Int {
        reserveWritable(minimum)
        let start = writerIndex
        let result = storage.withUnsafeMutableBytes { raw in
            body(UnsafeMutableRawBufferPointer(rebasing: raw[start...]))
        }
        if result > 0 { writerIndex += result }
        return result
    }

    /// Calls `body` with the unread bytes.
    func withUnsafeReadableBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws(HTTPParseError) -> R) throws(HTTPParseError) -> R {
        let start = readerIndex, end = writerIndex
        let result: Result<R, HTTPParseError> = storage.withUnsafeBufferPointer { buffer in
            do throws(HTTPParseError) {
                return .success(try body(UnsafeBufferPointer(rebasing: buffer[start..<end])))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Drops a large allocation once everything is read, so idle connections stay small.
    mutating func shrinkIfIdle() {
        if isEmpty && storage.count > ByteBuffer.initialCapacity {
            storage = []
            readerIndex = 0
            writerIndex = 0
        }
    }
}
