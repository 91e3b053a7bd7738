import Foundation

/// A structured logger that writes one JSON object per line to a `LogSink`.
///
/// Loggers are values: `with(_:)` returns a copy that adds fields (such as `request_id`)
/// to every line. Libraries receive a logger; they never create their own sink.
public struct Logger: Sendable {
    /// Severity of a log line; lines below the logger's `minimumLevel` are dropped.
    public enum Level: Int, Sendable, Comparable, CustomStringConvertible {
        case debug = 0, info, warning, error

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        public var description: String { name.description }

        /// The level as a log line names it.
        var name: StaticString {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warning: "warning"
            case .error: "error"
            }
        }
    }

    public let sink: any LogSink
    public let minimumLevel: Level
    public private(set) var fields: [(String, LogValue)]

    public init(sink: any LogSink, minimumLevel: Level = .info, fields: [(String, LogValue)] = []) {
        self.sink = sink
        self.minimumLevel = minimumLevel
        self.fields = fields
    }

    /// A logger that drops everything (for tests and tools that must stay quiet).
    public static let disabled = Logger(sink: DiscardingLogSink(), minimumLevel: .error)

    /// A copy of this logger that adds `extra` to every line it writes.
    public func with(_ extra: [(String, LogValue)]) -> Logger {
        var copy = self
        copy.fields.append(contentsOf: extra)
        return copy
    }

    public func debug(_ event: String, _ extra: [(String, LogValue)] = []) { log(.debug, event, extra) }
    public func info(_ event: String, _ extra: [(String, LogValue)] = []) { log(.info, event, extra) }
    public func warning(_ event: String, _ extra: [(String, LogValue)] = []) { log(.warning, event, extra) }
    public func error(_ event: String, _ extra: [(String, LogValue)] = []) { log(.error, event, extra) }

    /// Writes one line if `level` is at or above `minimumLevel`.
    public func log(_ level: Level, _ event: String, _ extra: [(String, LogValue)] = []) {
        guard level >= minimumLevel else { return }
        // Written into one buffer, sized once for the most its parts can take.
        var bound = LogLine.fixedBytes + LogLine.bound(of: event)
        for (key, value) in fields { bound += 2 + LogLine.bound(of: key) + LogLine.bound(of: value) }
        for (key, value) in extra { bound += 2 + LogLine.bound(of: key) + LogLine.bound(of: value) }
        let line = [UInt8](unsafeUninitializedCapacity: bound) { storage, count in
            var line = LogLine(storage)
            line.literal("{\"ts\":\"")
            RFC3339.writeNow(into: &line)
            line.literal("\",\"level\":\"")
            line.literal(level.name)
            line.literal("\",\"event\":")
            line.string(event)
            for (key, value) in fields { Self.write(key, value, into: &line) }
            for (key, value) in extra { Self.write(key, value, into: &line) }
            line.literal("}\n")
            count = line.count
        }
        sink.write(utf8: line)
    }

    private static func write(_ key: String, _ value: LogValue, into line: inout LogLine) {
        line.byte(UInt8(ascii: ","))
        line.string(key)
        line.byte(UInt8(ascii: ":"))
        line.value(value)
    }
}
