import Configuration
import Foundation
import Testing

@Suite("Documentation stays true")
struct DocumentationTests {
    @Test("docs/CONFIGURATION.md's reference lists every key and its environment variable")
    func referenceListsEveryKey() throws {
        let reference = try String(contentsOfFile: PackagePaths.root + "/docs/CONFIGURATION.md", encoding: .utf8)
        for key in TollgateConfig.documentedKeys() {
            #expect(reference.contains("| `\(key.path)` | `\(key.env)` |"), "docs/CONFIGURATION.md lacks \(key.path)")
        }
    }

    @Test("README has the two set-up commands, the one that starts the service and the test command .ci/run calls")
    func readmeCommands() throws {
        let readme = try String(contentsOfFile: PackagePaths.root + "/README.md", encoding: .utf8)
        #expect(readme.contains("\ncurl -O https://download.swift.org/swiftly/linux/"))
        #expect(readme.contains("\nsudo apt-get install -y libsqlite3-dev libssl-dev pkg-config\n"))
        #expect(readme.contains("\nswift run tollgate "))
        #expect(readme.contains("\nscripts/test\n"))
        let ci = try String(contentsOfFile: PackagePaths.root + "/.ci/run", encoding: .utf8)
        #expect(ci.split(separator: "\n").contains("scripts/test"), ".ci/run calls the README's test command")
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
