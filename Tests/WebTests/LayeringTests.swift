import Foundation
import Testing

/// The web layer only translates (docs/ARCHITECTURE.md): it decodes, calls one use case and
/// encodes. It names no repository, opens no transaction and does not import the storage module,
/// so every rule stays in `UseCases` or `Domain` where it is tested without HTTP.
@Suite("Layering")
struct LayeringTests {
    /// Every Swift file under `Sources/Web`, with its text.
    static func webSources() throws -> [(path: String, text: String)] {
        let root = PackagePaths.root + "/Sources/Web"
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        return try walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted().map { relative in
            ("Sources/Web/" + relative, try String(contentsOfFile: root + "/" + relative, encoding: .utf8))
        }
    }

    @Test("Sources/Web names no repository, calls no database.read/write and does not import Storage")
    func webOnlyTranslates() throws {
        let sources = try Self.webSources()
        #expect(sources.count > 20, "the web layer's files were not found under \(PackagePaths.root)")
        let pattern = try NSRegularExpression(pattern: #"Repository\.|database\.(read|write)|import Storage"#)
        var offenders: [String] = []
        for (path, text) in sources {
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = String(line)
                if pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil {
                    offenders.append("\(path):\(index + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(offenders.isEmpty, "the web layer reaches past the use cases:\n\(offenders.joined(separator: "\n"))")
    }
}
