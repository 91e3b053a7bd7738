import Foundation

/// The public `Error` types declared in a module's Swift sources, read from the text: every
/// `public`/`open` struct, enum, class or actor whose inheritance clause names `Error` or a
/// protocol that refines it (`HTTPResponseError: Error`, declared in any module of the tree, and
/// the protocols refining those in turn), nested ones too (`public struct Missing: Error` inside
/// another type).
enum PublicErrorTypes {
    /// `File.swift: Name` for each public error type under `directory`, sorted. `refiners` are the
    /// protocols that count as `Error` (see `errorProtocols(under:)`).
    static func declared(in directory: String, refiners: Set<String> = []) throws -> [String] {
        var found: [String] = []
        for (relative, text) in try sources(under: directory) {
            found += names(in: text, refiners: refiners).map { "\(relative): \($0)" }
        }
        return found.sorted()
    }

    /// Every protocol under `root` that refines `Error`, directly or through another such protocol.
    static func errorProtocols(under root: String) throws -> Set<String> {
        errorProtocols(in: try sources(under: root).map(\.text))
    }

    /// The protocols refining `Error` among `texts`, followed to a fixed point.
    static func errorProtocols(in texts: [String]) -> Set<String> {
        let pattern = try! NSRegularExpression(
            pattern: #"^[ \t]*(?:(?:public|open|internal|package|fileprivate|private)\s+)?protocol\s+(\w+)\s*:([^{\n]*)"#,
            options: [.anchorsMatchLines])
        var parents: [String: [String]] = [:]
        for text in texts {
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let name = String(text[Range(match.range(at: 1), in: text)!])
                let clause = String(text[Range(match.range(at: 2), in: text)!])
                parents[name] = clause.split(whereSeparator: { ",&".contains($0) || $0.isWhitespace }).map(String.init)
            }
        }
        var refiners: Set<String> = []
        var grew = true
        while grew {
            grew = false
            for (name, inherited) in parents
            where !refiners.contains(name)
                && inherited.contains(where: { $0 == "Error" || refiners.contains($0) })
            {
                refiners.insert(name)
                grew = true
            }
        }
        return refiners
    }

    /// The names of the public error types one Swift source declares.
    static func names(in source: String, refiners: Set<String> = []) -> [String] {
        let alternatives = (["Error"] + refiners.sorted()).joined(separator: "|")
        let pattern = try! NSRegularExpression(
            pattern:
                #"^[ \t]*(?:@\w+(?:\([^)]*\))?\s+)*(?:public|open)\s+(?:(?:final|indirect)\s+)?(?:struct|enum|class|actor)\s+(\w+)[^{:\n]*:[^{\n]*\b(?:"#
                + alternatives + #")\b"#,
            options: [.anchorsMatchLines])
        return pattern.matches(in: source, range: NSRange(source.startIndex..., in: source)).map {
            String(source[Range($0.range(at: 1), in: source)!])
        }
    }

    /// `(path relative to directory, text)` of every Swift file under `directory`.
    private static func sources(under directory: String) throws -> [(relative: String, text: String)] {
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return [] }
        var files: [(relative: String, text: String)] = []
        for case let relative as String in walker where relative.hasSuffix(".swift") {
            files.append((relative, try String(contentsOfFile: directory + "/" + relative, encoding: .utf8)))
        }
        return files
    }
}
