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

        public var description: String {
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
        // UTF-8 into one buffer, sized once: a request's line is built without growing it.
        var line: [UInt8] = []
        line.reserveCapacity(160 + 48 * (fields.count + extra.count))
        Self.appendLiteral("{\"ts\":\"", to: &line)
        RFC3339.appendNow(to: &line)
        Self.appendLiteral("\",\"level\":\"", to: &line)
        line.append(contentsOf: level.description.utf8)
        Self.appendLiteral("\",\"event\":", to: &line)
        LogValue.string(event).appendJSON(to: &line)
        for (key, value) in fields { append(key, value, to: &line) }
        for (key, value) in extra { append(key, value, to: &line) }
        Self.appendLiteral("}\n", to: &line)
        sink.write(utf8: line)
    }

    private func append(_ key: String, _ value: LogValue, to line: inout [UInt8]) {
        line.append(UInt8(ascii: ","))
        LogValue.string(key).appendJSON(to: &line)
        line.append(UInt8(ascii: ":"))
        value.appendJSON(to: &line)
    }

    private static func appendLiteral(_ text: StaticString, to line: inout [UInt8]) {
        text.withUTF8Buffer { line.append(contentsOf: $0) }
    }
}
