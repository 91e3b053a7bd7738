import Foundation

/// A strict reader of the Prometheus text exposition format (0.0.4), for tests: every line must
/// be a `# HELP`, a `# TYPE` or a sample; each family's `# TYPE` comes once, before its samples,
/// which are contiguous; names and label names are valid; label values are properly escaped;
/// no series repeats; a histogram's buckets are cumulative, end with `+Inf`, and equal `_count`.
struct PrometheusExposition {
    struct Sample: Equatable {
        let name: String
        let labels: [String: String]
        let value: Double
    }

    struct ParseError: Error, CustomStringConvertible {
        let description: String
    }

    private(set) var samples: [Sample] = []
    private(set) var types: [String: String] = [:]

    init(_ text: String) throws {
        guard text.isEmpty || text.hasSuffix("\n") else { throw ParseError(description: "the text does not end with a newline") }
        var finishedFamilies = Set<String>()
        var currentFamily: String?
        var seenSeries = Set<String>()
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().enumerated() {
            func fail(_ why: String) -> ParseError { ParseError(description: "line \(number + 1): \(why): \(line)") }
            if line.hasPrefix("# HELP ") || line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
                guard parts.count >= 3, Self.isMetricName(parts[2]) else { throw fail("bad comment") }
                let family = String(parts[2])
                if family != currentFamily {
                    if let currentFamily { finishedFamilies.insert(currentFamily) }
                    guard !finishedFamilies.contains(family) else { throw fail("family \(family) appears twice") }
                    currentFamily = family
                }
                if parts[1] == "TYPE" {
                    guard parts.count == 4, ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[3]) else {
                        throw fail("bad type")
                    }
                    guard types[family] == nil else { throw fail("second TYPE for \(family)") }
                    guard !samples.contains(where: { Self.family(of: $0.name, types: types) == family }) else {
                        throw fail("TYPE after samples")
                    }
                    types[family] = String(parts[3])
                }
                continue
            }
            guard !line.hasPrefix("#"), !line.isEmpty else { throw fail("not a sample") }
            let sample = try Self.sample(line, fail: fail)
            let family = Self.family(of: sample.name, types: types)
            if family != currentFamily {
                if let currentFamily { finishedFamilies.insert(currentFamily) }
                guard !finishedFamilies.contains(family) else { throw fail("samples of \(family) are not contiguous") }
                currentFamily = family
            }
            let series = sample.name + "{" + sample.labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",") + "}"
            guard seenSeries.insert(series).inserted else { throw fail("series repeated") }
            samples.append(sample)
        }
        try checkHistograms()
    }

    /// The value of the one sample named `name` whose labels include `labels`.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        let matches = samples.filter { sample in sample.name == name && labels.allSatisfy { key, value in sample.labels[key] == value } }
        return matches.count == 1 ? matches[0].value : nil
    }

    /// The sum of every sample named `name` whose labels include `labels` (0 when there is none).
    func sum(_ name: String, _ labels: [String: String] = [:]) -> Double {
        samples.filter { sample in sample.name == name && labels.allSatisfy { key, value in sample.labels[key] == value } }
            .reduce(0) { $0 + $1.value }
    }

    private func checkHistograms() throws {
        for (family, type) in types where type == "histogram" {
            var bySeries: [[String: String]: [(Double, Double)]] = [:]
            for sample in samples where sample.name == family + "_bucket" {
                guard let bound = sample.labels["le"], let upper = bound == "+Inf" ? Double.infinity : Double(bound) else {
                    throw ParseError(description: "\(family): a bucket without a valid le")
                }
                var rest = sample.labels
                rest["le"] = nil
                bySeries[rest, default: []].append((upper, sample.value))
            }
            for (labels, buckets) in bySeries {
                guard buckets.last?.0 == .infinity else { throw ParseError(description: "\(family)\(labels): the last bucket is not +Inf") }
                for (earlier, later) in zip(buckets, buckets.dropFirst()) {
                    guard earlier.0 < later.0, earlier.1 <= later.1 else {
                        throw ParseError(description: "\(family)\(labels): buckets out of order or not cumulative")
                    }
                }
                let count = samples.first { $0.name == family + "_count" && $0.labels == labels }?.value
                guard count == buckets.last?.1, samples.contains(where: { $0.name == family + "_sum" && $0.labels == labels }) else {
                    throw ParseError(description: "\(family)\(labels): _count differs from the +Inf bucket, or _sum is missing")
                }
            }
        }
    }

    private static func family(of name: String, types: [String: String]) -> String {
        for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
            let base = String(name.dropLast(suffix.count))
            if types[base] == "histogram" || types[base] == "summary" { return base }
        }
        return name
    }

    private static func isMetricName(_ name: Substring) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == ":"
        }
    }

    private static func sample(_ line: Substring, fail: (String) -> ParseError) throws -> Sample {
        var index = line.startIndex
        while index < line.endIndex, line[index] != "{", line[index] != " " { index = line.index(after: index) }
        let name = line[line.startIndex..<index]
        guard isMetricName(name) else { throw fail("bad metric name") }
        var labels: [String: String] = [:]
        if index < line.endIndex, line[index] == "{" {
            index = line.index(after: index)
            while index < line.endIndex, line[index] != "}" {
                let nameStart = index
                while index < line.endIndex, line[index] != "=" { index = line.index(after: index) }
                let labelName = line[nameStart..<index]
                guard !labelName.isEmpty, !labelName.contains(":"), isMetricName(labelName), index < line.endIndex else {
                    throw fail("bad label name")
                }
                index = line.index(after: index)
                guard index < line.endIndex, line[index] == "\"" else { throw fail("label value not quoted") }
                index = line.index(after: index)
                var value = ""
                while true {
                    guard index < line.endIndex else { throw fail("unterminated label value") }
                    let character = line[index]
                    index = line.index(after: index)
                    if character == "\"" { break }
                    if character == "\\" {
                        guard index < line.endIndex else { throw fail("dangling escape") }
                        switch line[index] {
                        case "\\": value.append("\\")
                        case "\"": value.append("\"")
                        case "n": value.append("\n")
                        default: throw fail("unknown escape")
                        }
                        index = line.index(after: index)
                    } else {
                        value.append(character)
                    }
                }
                guard labels.updateValue(value, forKey: String(labelName)) == nil else { throw fail("label repeated") }
                if index < line.endIndex, line[index] == "," { index = line.index(after: index) }
            }
            guard index < line.endIndex else { throw fail("unterminated labels") }
            index = line.index(after: index)
        }
        guard index < line.endIndex, line[index] == " " else { throw fail("no value") }
        let valueText = line[line.index(after: index)...].split(separator: " ")
        guard (1...2).contains(valueText.count) else { throw fail("bad value") }
        let value: Double
        switch valueText[0] {
        case "+Inf": value = .infinity
        case "-Inf": value = -.infinity
        case "NaN": value = .nan
        default:
            guard let parsed = Double(valueText[0]) else { throw fail("value is not a number") }
            value = parsed
        }
        return Sample(name: String(name), labels: labels, value: value)
    }
}
