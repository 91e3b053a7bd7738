import Foundation

/// Reading `Sources/` line by line for the architecture tests that forbid a construct.
enum SourceScan {
    /// The Swift files under `root`, relative to it, sorted.
    static func swiftFiles(under root: String) -> [String] {
        (FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []).filter { $0.hasSuffix(".swift") }.sorted()
    }

    /// The `file:line: code` of each line of `source` whose code (its `//` comment left out) `matches`.
    static func lines(in source: String, file: String, where matches: (String) -> Bool) -> [String] {
        source.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, line in
            guard matches(String(line).components(separatedBy: "//")[0]) else { return nil }
            return "\(file):\(index + 1): \(line.trimmingCharacters(in: .whitespaces))"
        }
    }
}
