import Configuration
import Foundation
import Testing

@Suite("Documentation stays true")
struct DocumentationTests {
    @Test("README's configuration reference lists every key and its environment variable")
    func readmeListsEveryKey() throws {
        let readme = try String(contentsOfFile: PackagePaths.root + "/README.md", encoding: .utf8)
        for key in TollgateConfig.documentedKeys() {
            #expect(readme.contains("| `\(key.path)` | `\(key.env)` |"), "README.md lacks \(key.path)")
        }
    }

    @Test("README has the two set-up commands")
    func readmeSetupCommands() throws {
        let readme = try String(contentsOfFile: PackagePaths.root + "/README.md", encoding: .utf8)
        #expect(readme.contains("swift run tollgate "))
        #expect(readme.contains("swift test "))
    }

    @Test("README points only at what the repository holds: no ../shared, the contract at Public/openapi.json")
    func readmeStaysInsideTheRepository() throws {
        let readme = try String(contentsOfFile: PackagePaths.root + "/README.md", encoding: .utf8)
        #expect(!readme.contains("../shared"))
        #expect(!readme.contains("spec/API.md"))
        #expect(readme.contains("[`Public/openapi.json`](Public/openapi.json)"))
        #expect(FileManager.default.fileExists(atPath: PackagePaths.root + "/Public/openapi.json"))
    }
}
