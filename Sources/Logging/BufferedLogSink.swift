import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Collects lines in memory and writes them to a file descriptor in batches — every
/// `interval`, or at once past `flushBytes` — so a busy server makes one `write(2)` per batch
/// instead of one per request. `flush()` (called at shutdown) writes what is left; a crash
/// loses at most one interval of lines.
public final class BufferedLogSink: LogSink {
    private let descriptor: Int32
    private let flushBytes: Int
    private let buffer = Mutex<[UInt8]>([])
    /// The batch being written: swapped with `buffer` under its lock, so neither array is copied
    /// or reallocated (a copy-on-write `removeAll` gave the writers a fresh 64 KiB, page-faulted
    /// in, after every flush). Touched only on `queue`, or in `deinit`.
    private nonisolated(unsafe) var batch: [UInt8] = []
    private let queue = DispatchQueue(label: "tollgate.log.flush")
    private let interval: DispatchTimeInterval

    /// - Parameters:
    ///   - descriptor: where lines go (2 for standard error).
    ///   - interval: the longest a line waits in memory.
    ///   - flushBytes: a batch this large is written at once.
    public init(descriptor: Int32 = 2, interval: Duration = .milliseconds(50), flushBytes: Int = 64 * 1024) {
        self.descriptor = descriptor
        self.flushBytes = flushBytes
        let milliseconds = Int(interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000)
        self.interval = .milliseconds(max(1, milliseconds))
        scheduleFlush()
    }

    deinit {
        // Nothing else holds the sink now (a queued flush would), so the batch is written here.
        writeBatch()
    }

    /// Flushes every interval for as long as the sink lives.
    private func scheduleFlush() {
        queue.asyncAfter(deadline: .now() + interval) { [weak self] in
            guard let self else { return }
            self.writeBatch()
            self.scheduleFlush()
        }
    }

    public func write(_ line: String) {
        append(line.utf8)
    }

    public func write(utf8 line: UnsafeBufferPointer<UInt8>) {
        append(line)
    }

    private func append(_ line: some Collection<UInt8>) {
        let full = buffer.withLock { buffer -> Bool in
            buffer.append(contentsOf: line)
            return buffer.count >= flushBytes
        }
        if full { queue.async { self.writeBatch() } }
    }

    /// Writes every buffered line now.
    public func flush() {
        queue.sync { writeBatch() }
    }

    /// Writes what the writers buffered: on `queue`, or in `deinit`.
    private func writeBatch() {
        buffer.withLock { buffer in swap(&buffer, &batch) }
        defer { batch.removeAll(keepingCapacity: true) }
        guard !batch.isEmpty else { return }
        batch.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 {
                    if written < 0 && errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}
