import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Where log lines go. Implementations must accept concurrent writes.
public protocol LogSink: Sendable {
    /// Writes one complete line (it already ends with a newline).
    func write(_ line: String)
    /// Writes one complete line of UTF-8 (the logger's own lines, rendered in memory the call
    /// lends): a sink that takes bytes implements it to skip making a `String`; the default
    /// makes one and calls `write(_:)`.
    func write(utf8 line: UnsafeBufferPointer<UInt8>)
    /// Writes out anything held back (a buffering sink); called before the process exits.
    func flush()
}

extension LogSink {
    public func write(utf8 line: UnsafeBufferPointer<UInt8>) { write(String(decoding: line, as: UTF8.self)) }
    public func flush() {}
}

/// Writes each line to standard error with a single `write(2)` call.
public struct StandardErrorLogSink: LogSink {
    public init() {}

    public func write(_ line: String) {
        var line = line
        line.withUTF8 { Self.writeAll($0) }
    }

    public func write(utf8 line: UnsafeBufferPointer<UInt8>) {
        Self.writeAll(line)
    }

    private static func writeAll(_ buffer: UnsafeBufferPointer<UInt8>) {
        var offset = 0
        while offset < buffer.count {
            let written = Glibc.write(2, buffer.baseAddress! + offset, buffer.count - offset)
            if written <= 0 {
                if written < 0 && errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}

/// Keeps lines in memory; tests read them back with `lines`.
public final class MemoryLogSink: LogSink {
    private let storage = Mutex<[String]>([])

    public init() {}

    public func write(_ line: String) {
        storage.withLock { $0.append(line) }
    }

    /// Every line written so far, without trailing newlines.
    public var lines: [String] {
        storage.withLock { $0.map { String($0.dropLast()) } }
    }
}

/// Drops every line.
public struct DiscardingLogSink: LogSink {
    public init() {}
    public func write(_ line: String) {}
}
