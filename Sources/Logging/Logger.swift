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
    /// The fields every line carries, as they go into it (`,"key":value` each): rendered once,
    /// here and in `with(_:)`, rather than escaped again for each line.
    private var renderedFields: [UInt8] = []

    public init(sink: any LogSink, minimumLevel: Level = .info, fields: [(String, LogValue)] = []) {
        self.sink = sink
        self.minimumLevel = minimumLevel
        Self.render(fields, onto: &renderedFields)
    }

    /// A logger that drops everything (for tests and tools that must stay quiet).
    public static let disabled = Logger(sink: DiscardingLogSink(), minimumLevel: .error)

    /// A copy of this logger that adds `extra` to every line it writes.
    public func with(_ extra: [(String, LogValue)]) -> Logger {
        var copy = self
        Self.render(extra, onto: &copy.renderedFields)
        return copy
    }

    /// A copy of this logger that adds one field to every line it writes (a request's id).
    public func with(_ key: String, _ value: LogValue) -> Logger {
        var copy = self
        Self.render(CollectionOfOne((key, value)), onto: &copy.renderedFields)
        return copy
    }

    public func debug(_ event: String, _ extra: [(String, LogValue)] = []) { log(.debug, event, extra) }
    public func info(_ event: String, _ extra: [(String, LogValue)] = []) { log(.info, event, extra) }
    public func warning(_ event: String, _ extra: [(String, LogValue)] = []) { log(.warning, event, extra) }
    public func error(_ event: String, _ extra: [(String, LogValue)] = []) { log(.error, event, extra) }

    /// Writes one line if `level` is at or above `minimumLevel`.
    public func log(_ level: Level, _ event: String, _ extra: [(String, LogValue)] = []) {
        guard level >= minimumLevel else { return }
        // Written into one buffer on the stack (a line is rarely past a kilobyte), sized once for
        // the most its parts can take, and copied by the sink.
        var bound = LogLine.fixedBytes + LogLine.bound(of: event) + renderedFields.count
        for (key, value) in extra { bound += Self.bound(key, value) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bound) { storage in
            var line = LogLine(storage)
            line.literal("{\"ts\":\"")
            RFC3339.writeNow(into: &line)
            line.literal("\",\"level\":\"")
            line.literal(level.name)
            line.literal("\",\"event\":")
            line.string(event)
            renderedFields.withUnsafeBufferPointer { line.bytes($0) }
            for (key, value) in extra { Self.write(key, value, into: &line) }
            line.literal("}\n")
            sink.write(utf8: UnsafeBufferPointer(rebasing: storage[..<line.count]))
        }
    }

    /// Appends `fields` to `rendered` as `,"key":value` each.
    private static func render(_ fields: some Collection<(String, LogValue)>, onto rendered: inout [UInt8]) {
        guard !fields.isEmpty else { return }
        let bound = fields.reduce(0) { $0 + Self.bound($1.0, $1.1) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bound) { storage in
            var line = LogLine(storage)
            for (key, value) in fields { write(key, value, into: &line) }
            rendered.append(contentsOf: UnsafeBufferPointer(rebasing: storage[..<line.count]))
        }
    }

    /// The most bytes `write(key, value, into:)` can take.
    private static func bound(_ key: String, _ value: LogValue) -> Int {
        2 + LogLine.bound(of: key) + LogLine.bound(of: value)
    }

    private static func write(_ key: String, _ value: LogValue, into line: inout LogLine) {
        line.byte(UInt8(ascii: ","))
        line.string(key)
        line.byte(UInt8(ascii: ":"))
        line.value(value)
    }
}
