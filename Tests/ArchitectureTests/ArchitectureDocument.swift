import Foundation

/// The module graph docs/ARCHITECTURE.md states: the rows of its table headed `| target |`,
/// `` | `Target` | what it holds | imports | ``,
/// whose last column lists the package modules the target imports, comma-separated (`nothing`
/// for none; a parenthesis after a name is a remark, e.g. `Domain (types)`).
struct ArchitectureDocument {
    /// Each documented target and the modules the document says it imports.
    var imports: [String: Set<String>]

    init(markdown: String) {
        var imports: [String: Set<String>] = [:]
        let row = try! NSRegularExpression(pattern: #"^\|\s*`(\w+)`\s*\|.*\|\s*([^|]*?)\s*\|\s*$"#)
        var inTable = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("| target |") { inTable = true }
            if !line.hasPrefix("|") { inTable = false }
            guard inTable, let match = row.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) else { continue }
            let name = String(line[Range(match.range(at: 1), in: line)!])
            let list = String(line[Range(match.range(at: 2), in: line)!])
            imports[name] = Self.names(in: list)
        }
        self.imports = imports
    }

    /// `A, B (remark), C` → {A, B, C}; `nothing` (with or without a remark) → {}.
    static func names(in list: String) -> Set<String> {
        let withoutRemarks = list.replacingOccurrences(of: #"\([^)]*\)"#, with: "", options: .regularExpression)
        return Set(
            withoutRemarks.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "`", with: "") }
                .filter { !$0.isEmpty && $0 != "nothing" })
    }
}
