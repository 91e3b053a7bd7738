import Foundation
import Testing

/// docs/ARCHITECTURE.md's module graph is the package's: every module a target imports is
/// declared in `Package.swift` (nothing passes only because another dependency brings it in), a
/// shipped target declares nothing it does not import, and the document's table names, for every
/// target under `Sources/`, exactly what it imports.
@Suite("Module graph")
struct ModuleGraphTests {
    /// This checkout's root, from this file's path (`Tests/ArchitectureTests/ModuleGraphTests.swift`).
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().standardized.path

    static func graph() throws -> PackageGraph {
        PackageGraph(manifest: try String(contentsOfFile: root + "/Package.swift", encoding: .utf8))
    }

    static func imports(of target: PackageGraph.Target, in graph: PackageGraph) throws -> Set<String> {
        try PackageGraph.imports(in: root + "/" + target.path, own: target.name, modules: Set(graph.targets.keys))
    }

    @Test("Package.swift declares every module each target imports")
    func everyImportIsDeclared() throws {
        let graph = try Self.graph()
        #expect(graph.targets.count > 30, "Package.swift's targets were not found under \(Self.root)")
        var undeclared: [String] = []
        for target in graph.targets.values.sorted(by: { $0.name < $1.name }) where target.kind != .systemLibrary {
            let missing = try Self.imports(of: target, in: graph).subtracting(target.dependencies)
            if !missing.isEmpty { undeclared.append("\(target.name) imports \(missing.sorted().joined(separator: ", ")) undeclared") }
        }
        #expect(undeclared.isEmpty, "\n\(undeclared.joined(separator: "\n"))")
    }

    @Test("A library or executable target declares only what it imports")
    func nothingDeclaredUnused() throws {
        let graph = try Self.graph()
        var unused: [String] = []
        for target in graph.targets.values.sorted(by: { $0.name < $1.name }) where target.kind == .target || target.kind == .executableTarget {
            let extra = target.dependencies.subtracting(try Self.imports(of: target, in: graph))
            if !extra.isEmpty { unused.append("\(target.name) declares \(extra.sorted().joined(separator: ", ")) but imports none of it") }
        }
        #expect(unused.isEmpty, "\n\(unused.joined(separator: "\n"))")
    }

    @Test("docs/ARCHITECTURE.md's table states each target's imports as Package.swift declares them")
    func documentMatchesThePackage() throws {
        let graph = try Self.graph()
        let document = ArchitectureDocument(markdown: try String(contentsOfFile: Self.root + "/docs/ARCHITECTURE.md", encoding: .utf8))
        var differences: [String] = []
        for target in graph.targets.values.sorted(by: { $0.name < $1.name })
        where target.path.hasPrefix("Sources/") && target.kind != .systemLibrary {
            guard let stated = document.imports[target.name] else {
                differences.append("\(target.name) has no row")
                continue
            }
            if stated != target.dependencies {
                let missing = target.dependencies.subtracting(stated).sorted(), extra = stated.subtracting(target.dependencies).sorted()
                differences.append(
                    "\(target.name): the document lacks [\(missing.joined(separator: ", "))], names too [\(extra.joined(separator: ", "))]")
            }
        }
        for name in document.imports.keys.sorted() where graph.targets[name] == nil {
            differences.append("\(name) is documented but is no target")
        }
        #expect(differences.isEmpty, "docs/ARCHITECTURE.md differs from Package.swift:\n\(differences.joined(separator: "\n"))")
    }

    @Test("Web imports no configuration, mail, outside service or simulator: App hands it WebSettings and use cases")
    func webOnlyTranslates() throws {
        let graph = try Self.graph()
        let web = try #require(graph.targets["Web"])
        let forbidden: Set<String> = ["Configuration", "Mail", "Integrations", "StripeSimulator", "Storage"]
        let imported = try Self.imports(of: web, in: graph)
        #expect(imported.isDisjoint(with: forbidden), "Sources/Web imports \(imported.intersection(forbidden).sorted())")
        #expect(web.dependencies.isDisjoint(with: forbidden), "Package.swift gives Web \(web.dependencies.intersection(forbidden).sorted())")
    }

    @Test(
        "The command line neither declares nor imports Web: serve reaches the routes through App's TollgateApp, the other commands build no Web object"
    )
    func commandLineHasNoWeb() throws {
        let graph = try Self.graph()
        let cli = try #require(graph.targets["tollgate"])
        #expect(!(try Self.imports(of: cli, in: graph)).contains("Web"), "Sources/tollgate imports Web")
        #expect(!cli.dependencies.contains("Web"), "Package.swift gives tollgate Web")
        // What the commands build from App: none of it imports Web, so none of it makes a Web object.
        let built = ["Essentials.swift", "WorkerWakes.swift", "UseCaseFactory.swift", "UseCaseFactory+UseCases.swift", "StripeSetup.swift"]
        for file in built {
            let text = try String(contentsOfFile: Self.root + "/Sources/App/" + file, encoding: .utf8)
            #expect(!text.split(separator: "\n").contains { $0.hasPrefix("import Web") }, "Sources/App/\(file) imports Web")
        }
    }
}
