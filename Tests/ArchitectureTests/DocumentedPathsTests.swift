import Foundation
import Testing

/// docs/ARCHITECTURE.md sends a newcomer to files and folders by name; each one it names must be
/// there, and so must every document the code cites (the contract is in `docs/spec/`). A path is a backticked token of path characters with a `/` that does not start with one
/// (those are routes): `Domain/Redemption/CodeKey.swift`, `Public/`, `Tests/WebTests/Browser`. It
/// may be written from the checkout's root, from `Sources/` or `Tests/`, or as the tail of a
/// longer path (`Schema/DomainMigrations.swift`); `*` and `...` stand for part of one name.
@Suite("Paths the architecture document names")
struct DocumentedPathsTests {
    @Test("Every path docs/ARCHITECTURE.md names exists in the checkout")
    func everyNamedPathExists() throws {
        let text = try String(contentsOfFile: ModuleGraphTests.root + "/docs/ARCHITECTURE.md", encoding: .utf8)
        let paths = Self.namedPaths(in: text)
        #expect(paths.count > 40, "the reader found only \(paths.count) paths: \(paths)")
        let tree = try Self.tree(under: ModuleGraphTests.root)
        let missing = paths.filter { !Self.exists($0, in: tree) }
        #expect(missing.isEmpty, "docs/ARCHITECTURE.md names paths that are not in the checkout: \(missing.joined(separator: ", "))")
    }

    @Test("Every document the code, scripts and docs cite (`API.md`, `STORES.md`, `CONVENTIONS.md`, ...) is in the checkout")
    func everyCitedDocumentExists() throws {
        let root = ModuleGraphTests.root
        let tree = try Self.tree(under: root)
        let names = Set(tree.map { ($0 as NSString).lastPathComponent })
        var cited: [String: String] = [:]
        for relative in tree where Self.citesDocuments(relative) {
            guard let text = try? String(contentsOfFile: root + "/" + relative, encoding: .utf8) else { continue }
            for name in Self.citedDocuments(in: text) where cited[name] == nil { cited[name] = relative }
        }
        #expect(cited.keys.contains("API.md") && cited.keys.contains("STORES.md"), "the reader found \(cited.keys.sorted())")
        let missing = cited.filter { !names.contains($0.key) }.map { "\($0.key) (cited in \($0.value))" }.sorted()
        #expect(missing.isEmpty, "cited but not in the checkout: \(missing.joined(separator: ", "))")
    }

    @Test("The citation reader takes document names and a bare CONVENTIONS, not paths' lower-case names")
    func citationReader() {
        let text = "API.md \"Redemption\", see STORES.md and docs/BENCHMARKS.md; CONVENTIONS keeps it; notes.md, CONVENTIONS.md"
        #expect(Self.citedDocuments(in: text) == ["API.md", "STORES.md", "BENCHMARKS.md", "CONVENTIONS", "CONVENTIONS.md"])
    }

    /// Whether `relative` is a file of ours whose text may cite a document (sources, tests, scripts, docs).
    static func citesDocuments(_ relative: String) -> Bool {
        let roots = ["Sources/", "Tests/", "scripts/", "docs/", "Public/", "templates/", ".ci/", "README.md", "Package.swift"]
        // Fixtures are others' text; this file holds sample citations for its reader's test.
        guard roots.contains(where: { relative.hasPrefix($0) }), !relative.hasPrefix("Tests/Fixtures/"),
            !relative.hasSuffix("ArchitectureTests/DocumentedPathsTests.swift")
        else { return false }
        let kinds = ["swift", "md", "json", "html", "sh", "py", "lua", "toml", "txt", ""]
        return kinds.contains((relative as NSString).pathExtension)
    }

    /// The upper-case document names `text` cites (`API.md`, `STORES.md`), and `CONVENTIONS` written bare.
    static func citedDocuments(in text: String) -> [String] {
        let token = try! NSRegularExpression(pattern: #"\b([A-Z][A-Z0-9-]*\.md|CONVENTIONS)\b"#)
        return token.matches(in: text, range: NSRange(text.startIndex..., in: text)).map {
            String(text[Range($0.range(at: 1), in: text)!])
        }
    }

    @Test("The reader takes paths, not routes or prose, and a missing one is found missing")
    func reader() {
        let text = "see `Domain/Codes/` and `App/Services.swift` (`Integrations/*/...+Snapshot.swift`), not `/api/v1/redeem` or `a / b` or `plain`"
        #expect(Self.namedPaths(in: text) == ["Domain/Codes/", "App/Services.swift", "Integrations/*/...+Snapshot.swift"])
        let tree = ["Sources/App/Services.swift", "Sources/Domain/Codes", "Sources/Integrations/Stripe/Event+Snapshot.swift"]
        #expect(Self.exists("App/Services.swift", in: tree))
        #expect(Self.exists("Domain/Codes/", in: tree))
        #expect(Self.exists("Codes/", in: tree))
        #expect(Self.exists("Integrations/*/...+Snapshot.swift", in: tree))
        #expect(!Self.exists("App/Locator.swift", in: tree))
        #expect(!Self.exists("Integrations/*/...+Missing.swift", in: tree))
    }

    /// The backticked path tokens of `markdown`, in order, each once.
    static func namedPaths(in markdown: String) -> [String] {
        let token = try! NSRegularExpression(pattern: #"`([A-Za-z0-9_.*+-]+(?:/[A-Za-z0-9_.*+-]*)+)`"#)
        var seen: Set<String> = [], paths: [String] = []
        for match in token.matches(in: markdown, range: NSRange(markdown.startIndex..., in: markdown)) {
            let path = String(markdown[Range(match.range(at: 1), in: markdown)!])
            if seen.insert(path).inserted { paths.append(path) }
        }
        return paths
    }

    /// Whether `path` names an entry of `tree` (paths from the root, folders without a slash).
    static func exists(_ path: String, in tree: [String]) -> Bool {
        let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
        let name = NSRegularExpression.escapedPattern(for: trimmed)
            .replacingOccurrences(of: #"\.\.\."#, with: "[^/]*").replacingOccurrences(of: #"\*"#, with: "[^/]*")
        let pattern = try! NSRegularExpression(pattern: "(^|/)" + name + "$")
        return tree.contains { pattern.firstMatch(in: $0, range: NSRange($0.startIndex..., in: $0)) != nil }
    }

    /// Every file and folder under `root`, relative to it, without build products (any `.build*`
    /// folder, nested packages' too) and git's own.
    static func tree(under root: String) throws -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        var entries: [String] = []
        for case let relative as String in walker {
            let name = (relative as NSString).lastPathComponent
            if name.hasPrefix(".build") || name == ".git" || name == ".swiftpm" {
                walker.skipDescendants()
                continue
            }
            entries.append(relative)
        }
        return entries
    }
}
