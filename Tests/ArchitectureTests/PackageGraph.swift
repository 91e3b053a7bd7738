import Foundation

/// The module graph as the package declares it and as the sources use it: each target of
/// `Package.swift` with its declared dependencies and its source folder, and the package modules
/// its Swift files `import`. Read from the text (no SwiftPM): `Package.swift` keeps one call per
/// target with a literal `name:`, `dependencies:` and `path:`.
struct PackageGraph {
    /// One target of `Package.swift`.
    struct Target: Equatable {
        enum Kind: String { case target, executableTarget, testTarget, systemLibrary }
        var name: String
        var kind: Kind
        var dependencies: Set<String>
        /// Its sources, relative to the package root (`path:`, else `Sources/<name>` or `Tests/<name>`).
        var path: String
    }

    var targets: [String: Target]

    /// The targets declared in a `Package.swift` text.
    init(manifest: String) {
        let text = manifest.split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line) }
            .joined(separator: "\n")
        var targets: [String: Target] = [:]
        let call = try! NSRegularExpression(pattern: #"\.(target|executableTarget|testTarget|systemLibrary)\("#)
        for match in call.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            let kind = Target.Kind(rawValue: String(text[Range(match.range(at: 1), in: text)!]))!
            let body = Self.balanced(text, from: Range(match.range, in: text)!.upperBound)
            guard let name = Self.firstString(after: "name:", in: body) else { continue }
            var dependencies: Set<String> = []
            if let list = body.range(of: "dependencies:"), let open = body[list.upperBound...].firstIndex(of: "["),
                let close = body[open...].firstIndex(of: "]")
            {
                dependencies = Set(Self.strings(in: String(body[open...close])))
            }
            let path = Self.firstString(after: "path:", in: body) ?? (kind == .testTarget ? "Tests/" : "Sources/") + name
            targets[name] = Target(name: name, kind: kind, dependencies: dependencies, path: path)
        }
        self.targets = targets
    }

    /// The package modules the Swift files under `directory` import, other than `own`.
    static func imports(in directory: String, own: String, modules: Set<String>) throws -> Set<String> {
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return [] }
        var found: Set<String> = []
        for case let relative as String in walker where relative.hasSuffix(".swift") {
            let text = try String(contentsOfFile: directory + "/" + relative, encoding: .utf8)
            found.formUnion(importedModules(in: text))
        }
        return found.intersection(modules).subtracting([own])
    }

    /// The modules named by the `import` lines of one Swift file (`@testable`, `@preconcurrency`,
    /// access levels and `import struct X.Y` included).
    static func importedModules(in source: String) -> Set<String> {
        let pattern = try! NSRegularExpression(
            pattern:
                #"^\s*(?:@\w+\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+(?:(?:struct|class|enum|protocol|typealias|func|var|let)\s+)?(\w+)"#,
            options: [.anchorsMatchLines])
        return Set(
            pattern.matches(in: source, range: NSRange(source.startIndex..., in: source)).map {
                String(source[Range($0.range(at: 1), in: source)!])
            })
    }

    /// The text inside the parentheses opened just before `start`.
    private static func balanced(_ text: String, from start: String.Index) -> String {
        var depth = 1
        var index = start
        var inString = false
        while index < text.endIndex {
            let character = text[index]
            if character == "\"" { inString.toggle() }
            if !inString {
                if character == "(" { depth += 1 }
                if character == ")" { depth -= 1; if depth == 0 { break } }
            }
            index = text.index(after: index)
        }
        return String(text[start..<index])
    }

    private static func firstString(after label: String, in text: String) -> String? {
        guard let range = text.range(of: label) else { return nil }
        return strings(in: String(text[range.upperBound...])).first
    }

    private static func strings(in text: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: #""([^"]*)""#)
        return pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { String(text[Range($0.range(at: 1), in: text)!]) }
    }
}
