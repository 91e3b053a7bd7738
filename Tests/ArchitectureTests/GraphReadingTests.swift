import Testing

/// The readers the module-graph test relies on, on small texts: they find what is there, so the
/// graph test can fail.
@Suite("Reading the module graph")
struct GraphReadingTests {
    @Test("Targets, dependencies and paths are read from a manifest; comments are ignored")
    func manifest() {
        let graph = PackageGraph(
            manifest: """
                targets: [
                    .systemLibrary(name: "CLib", pkgConfig: "lib", providers: [.apt(["lib-dev"])]),
                    // .target(name: "Commented", dependencies: ["Nothing"]),
                    .target(name: "A", swiftSettings: strict),
                    .target(
                        name: "B", dependencies: ["A", "CLib"], // a remark
                        swiftSettings: strict),
                    .executableTarget(name: "tool", dependencies: ["B"], path: "scripts/tool", swiftSettings: strict),
                    .testTarget(name: "BTests", dependencies: ["B"], exclude: ["x (y).txt"], swiftSettings: strict),
                ]
                """)
        #expect(graph.targets.keys.sorted() == ["A", "B", "BTests", "CLib", "tool"])
        #expect(graph.targets["B"] == .init(name: "B", kind: .target, dependencies: ["A", "CLib"], path: "Sources/B"))
        #expect(graph.targets["A"]?.dependencies == [])
        #expect(graph.targets["tool"]?.path == "scripts/tool")
        #expect(graph.targets["BTests"]?.path == "Tests/BTests")
    }

    @Test("Every form of import line names its module")
    func imports() {
        // One line per import, joined here so this file's own lines import nothing.
        let source = [
            "import Foundation", "@testable import Web", "@preconcurrency import Glibc", "internal import CSQLite",
            "import struct Domain.Purchase", "// import Commented", "let text = \"import Nothing\""
        ].joined(separator: "\n")
        #expect(PackageGraph.importedModules(in: source) == ["Foundation", "Web", "Glibc", "CSQLite", "Domain"])
    }

    @Test("The document's table rows give each target's imports")
    func document() {
        let document = ArchitectureDocument(
            markdown: """
                | `Before` | not in the table | Nothing |

                | target | what it holds | imports |
                | --- | --- | --- |
                | `Logging` | logs (`/metrics`) | nothing |
                | `Sockets` | sockets | nothing (Glibc) |
                | `Web` | routes, `APIError` | HTTPCore, Domain (types), `UseCases` |

                | `After` | not in the table | Nothing |
                """)
        #expect(document.imports == ["Logging": [], "Sockets": [], "Web": ["HTTPCore", "Domain", "UseCases"]])
    }
}
