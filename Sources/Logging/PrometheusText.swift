/// Writes the Prometheus text exposition format (version 0.0.4): a `# HELP` and `# TYPE` line per
/// family, then its samples with escaped label values.
public struct PrometheusText: Sendable {
    /// The metric types this writer emits.
    public enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    /// The text written so far.
    public private(set) var text = ""

    /// An empty exposition.
    public init() {}

    /// Starts a family: its help text and type. Samples of that family follow.
    public mutating func family(_ name: String, _ kind: Kind, help: String) {
        text += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(kind.rawValue)\n"
    }

    /// One sample line without labels.
    public mutating func sample(_ name: String, _ value: Double) { sample(name, [], value) }

    /// One sample line without labels, with an integer value.
    public mutating func sample(_ name: String, _ value: Int) { sample(name, [], value) }

    /// One sample line.
    public mutating func sample(_ name: String, _ labels: [(String, String)], _ value: Double) {
        text += name
        appendLabels(labels)
        text += " \(Self.format(value))\n"
    }

    /// One sample line with an integer value.
    public mutating func sample(_ name: String, _ labels: [(String, String)], _ value: Int) {
        text += name
        appendLabels(labels)
        text += " \(value)\n"
    }

    /// The `_bucket` (cumulative, `+Inf` last), `_sum` and `_count` lines of one histogram.
    public mutating func histogram(_ name: String, _ labels: [(String, String)], _ histogram: Histogram) {
        var cumulative = 0
        for (index, bound) in histogram.bounds.enumerated() {
            cumulative += histogram.bucketCounts[index]
            sample(name + "_bucket", labels + [("le", Self.format(bound))], cumulative)
        }
        sample(name + "_bucket", labels + [("le", "+Inf")], histogram.count)
        sample(name + "_sum", labels, histogram.sum)
        sample(name + "_count", labels, histogram.count)
    }

    private mutating func appendLabels(_ labels: [(String, String)]) {
        guard !labels.isEmpty else { return }
        text += "{"
        for (index, (name, value)) in labels.enumerated() {
            if index > 0 { text += "," }
            text += name
            text += "=\""
            for character in value.unicodeScalars {
                switch character {
                case "\\": text += "\\\\"
                case "\"": text += "\\\""
                case "\n": text += "\\n"
                default: text.unicodeScalars.append(character)
                }
            }
            text += "\""
        }
        text += "}"
    }

    /// A sample value as Prometheus reads it (`+Inf`, `-Inf`, `NaN` spelled its way).
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    private static func escapeHelp(_ help: String) -> String {
        var out = ""
        for character in help.unicodeScalars {
            switch character {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }
}
