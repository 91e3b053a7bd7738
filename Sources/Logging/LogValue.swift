/// A value in a structured log line, rendered as JSON.
public enum LogValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral
{
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }

    /// Appends this value as a JSON literal (strings escaped per RFC 8259) in UTF-8.
    public func appendJSON(to out: inout [UInt8]) {
        out.append(
            contentsOf: [UInt8](unsafeUninitializedCapacity: LogLine.bound(of: self)) { storage, count in
                var line = LogLine(storage)
                line.value(self)
                count = line.count
            })
    }

    /// `value` × 1000 when that is a whole number and `value` is one of the doubles nearest a
    /// number of thousandths below 10^12 in magnitude (so its shortest decimal form is that
    /// number's); nil otherwise, and for -0.0.
    static func exactThousandths(_ value: Double) -> Int? {
        guard value.isFinite, value.magnitude < 1e12, value != 0 || value.sign == .plus else { return nil }
        let scaled = (value * 1000).rounded()
        let thousandths = Int(scaled)
        guard Double(thousandths) / 1000 == value else { return nil }
        return thousandths
    }
}
