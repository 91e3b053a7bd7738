import Configuration
import Foundation
import Logging
import Templating
import Testing

@testable import App

/// `templates/` and `Public/` are found wherever `tollgate` starts; what is found nowhere is
/// reported with absolute paths before the database is touched.
@Suite("Templates and static files from anywhere")
struct ResourceDirectoriesTests {
    @Test("From another folder, the defaults are found beside the executable's package; an absolute key still wins")
    func foundBesideTheExecutable() throws {
        let elsewhere = try TemporaryDirectory()
        let executable = PackagePaths.root + "/.build/x86_64-unknown-linux-gnu/debug/tollgate"
        let resolved = try ResourceDirectories.resolve(TollgateConfig.Paths(), executable: executable, workingDirectory: elsewhere.path)
        #expect(resolved.templatesDir == PackagePaths.templates)
        #expect(resolved.publicDir == PackagePaths.publicDir)
        var configured = TollgateConfig.Paths()
        configured.templatesDir = PackagePaths.templates
        configured.publicDir = PackagePaths.publicDir
        #expect(
            try ResourceDirectories.resolve(configured, executable: "/nowhere/tollgate", workingDirectory: elsewhere.path).templatesDir
                == PackagePaths.templates)
    }

    @Test("Found nowhere: the error names the key and every absolute path tried, and no database file is made")
    func missingIsReportedBeforeTheDatabase() throws {
        let elsewhere = try TemporaryDirectory()
        var config = try TollgateConfig.make(directory: elsewhere.path)
        config.paths.templatesDir = "no-such-templates"
        config.database.path = elsewhere.path + "/fresh/tollgate.sqlite"
        do {
            _ = try TollgateApp(config: config, logger: Logger(sink: MemoryLogSink()))
            Issue.record("start-up must fail")
        } catch let error as StartupError {
            #expect(error.description.contains("paths.templates_dir"))
            #expect(error.description.contains(FileManager.default.currentDirectoryPath + "/no-such-templates"))
        }
        #expect(!FileManager.default.fileExists(atPath: elsewhere.path + "/fresh/tollgate.sqlite"))
    }

    @Test("Templates handed to the app are the ones it serves: its templates directory is not read again")
    func loadedTemplatesAreServed() async throws {
        let directory = try TemporaryDirectory()
        let templates = directory.path + "/templates"
        try FileManager.default.copyItem(atPath: PackagePaths.templates, toPath: templates)
        let loaded = try LocalizedTemplates(directory: templates)
        // Broken after the load: reading the directory now would stop start-up at this line.
        try Data("{{#never_closed}}".utf8).write(to: URL(fileURLWithPath: templates + "/home.html"))
        var config = try TollgateConfig.make(directory: directory.path)
        config.paths.templatesDir = templates
        #expect(throws: TemplateError.self) { _ = try TollgateApp(config: config, logger: Logger(sink: MemoryLogSink())) }
        let app = TestApp(
            directory: directory, app: try TollgateApp(config: config, logger: Logger(sink: MemoryLogSink()), templates: loaded),
            logs: MemoryLogSink())
        let home = await app.send(.get, "/")
        #expect(home.status == .ok)
        #expect(home.text.contains("<html lang=\"en\""))
    }
}
