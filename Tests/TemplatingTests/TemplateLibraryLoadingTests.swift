import Foundation
import Testing
@testable import Templating

@Suite("Loading templates from a directory")
struct TemplateLibraryLoadingTests {
    /// A fresh directory holding `files` (relative path → contents).
    private func makeDirectory(_ files: [String: String]) throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("templates-\(UUID().uuidString)").path
        for (relative, contents) in files {
            let path = root + "/" + relative
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try contents.write(toFile: path, atomically: true, encoding: .utf8)
        }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        return root
    }

    @Test("loads .html and .txt recursively with the documented names, skipping other files")
    func loadsDirectory() throws {
        let root = try makeDirectory([
            "layout_header.html": "<header>{{title}}</header>\n",
            "success.html": "{{> layout_header}}\n<p>{{code}}</p>",
            "email/redemption_code.html": "<p>{{code}}</p>{{> email/footer}}",
            "email/redemption_code.txt": "Code: {{code}}\n{{> email/footer.txt}}",
            "email/footer.html": "<hr>",
            "email/footer.txt": "--",
            "README.md": "{{#broken",
            ".hidden.html": "{{#broken"
        ])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let library = try TemplateLibrary(directory: root)
        #expect(
            library.names == [
                "email/footer", "email/footer.txt", "email/redemption_code", "email/redemption_code.txt",
                "layout_header", "success"
            ])
        #expect(try library.render("success", ["title": "Done", "code": "A<1"]) == "<header>Done</header>\n<p>A&lt;1</p>")
        #expect(try library.render("email/redemption_code", ["code": "X&Y"]) == "<p>X&amp;Y</p><hr>")
        #expect(try library.render("email/redemption_code.txt", ["code": "X&Y"]) == "Code: X&Y\n--")
    }

    @Test("a syntax error in a nested file reports its path, line and column")
    func errorInFile() throws {
        let root = try makeDirectory([
            "ok.html": "fine",
            "email/bad.html": "<p>\n  hello\n  {{#code}}\n"
        ])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let error = #expect(throws: TemplateError.self) { try TemplateLibrary(directory: root) }
        #expect(error?.description == "\(root)/email/bad.html:3:3: section \"code\" opened here is never closed")
    }

    @Test("an unknown partial in a file reports the file and position")
    func unknownPartialInFile() throws {
        let root = try makeDirectory(["page.html": "x\n{{> nope}}"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let error = #expect(throws: TemplateError.self) { try TemplateLibrary(directory: root) }
        #expect(error?.description == "\(root)/page.html:2:1: unknown partial \"nope\"")
    }

    @Test("a missing directory and a non-UTF-8 file are errors naming the path")
    func unreadable() throws {
        let missing = "/nonexistent-\(UUID().uuidString)"
        let error = #expect(throws: TemplateError.self) { try TemplateLibrary(directory: missing) }
        #expect(error?.description == "\(missing): template directory does not exist")

        let root = try makeDirectory([:])
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Data([0x3C, 0xFF, 0xFE, 0x3E]).write(to: URL(fileURLWithPath: root + "/bin.html"))
        let binary = #expect(throws: TemplateError.self) { try TemplateLibrary(directory: root) }
        #expect(binary?.description == "\(root)/bin.html: template is not valid UTF-8")
    }
}
