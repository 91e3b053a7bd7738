import Foundation
import Testing

/// One JSON in the tree: `JSONValue` (module JSON) reads and writes it, so numbers keep their
/// types (`true` is no 1, `1700000000000` no Double) and bodies are read to one strictness.
/// Foundation's `JSONSerialization` stays out of `Sources/`, but for the documented exceptions.
@Suite("One JSON reader")
struct JSONReaderTests {
    /// Files that may use `JSONSerialization`, and why (each one also says so where it does).
    static let exceptions: [String: String] = [
        "TollgateClient/APIRequest.swift": "the app's library ships to apps and depends on no Tollgate target, module JSON included"
    ]

    /// The `file:line: code` of each line of `source` (comments left out) that names `JSONSerialization`.
    static func uses(in source: String, file: String) -> [String] {
        SourceScan.lines(in: source, file: file) { $0.contains("JSONSerialization") }
    }

    @Test("No source outside the documented exceptions uses JSONSerialization: read with JSONValue.parse, write with serialized()")
    func noJSONSerialization() throws {
        let root = ModuleGraphTests.root + "/Sources"
        let files = SourceScan.swiftFiles(under: root)
        #expect(files.count > 500, "only \(files.count) sources found under \(root)")
        var found: [String] = [], excepted: Set<String> = []
        for file in files {
            let lines = Self.uses(in: try String(contentsOfFile: root + "/" + file, encoding: .utf8), file: file)
            if Self.exceptions[file] != nil {
                if !lines.isEmpty { excepted.insert(file) }
            } else {
                found += lines
            }
        }
        #expect(found.isEmpty, "JSONSerialization is back (use module JSON's JSONValue):\n\(found.joined(separator: "\n"))")
        // An exception that no longer uses it is removed from the list, so the list stays true.
        let unused = Set(Self.exceptions.keys).subtracting(excepted).sorted()
        #expect(unused.isEmpty, "exceptions that no longer use JSONSerialization (remove them from the list): \(unused)")
    }

    @Test("The scan finds a use in code, not in a comment")
    func scanFindsUses() {
        #expect(Self.uses(in: "let o = try JSONSerialization.jsonObject(with: d)", file: "f").count == 1)
        #expect(Self.uses(in: "x = 1 // not JSONSerialization", file: "f").isEmpty)
        #expect(Self.uses(in: "/// Unlike JSONSerialization, ...", file: "f").isEmpty)
    }
}
