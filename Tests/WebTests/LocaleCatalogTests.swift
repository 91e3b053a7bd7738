import Foundation
import Templating
import Testing

@testable import Web

/// The shipped catalogs against the templates: every key a template or handler names is in
/// English, no catalog holds a key nothing uses, and no English is left in a template.
@Suite("Locale catalogs and templates")
struct LocaleCatalogTests {
    static func templates() throws -> [Template] { try TemplateLibrary.parse(directory: PackagePaths.templates) }
    static func catalogs() throws -> [String: MessageCatalog] {
        try MessageCatalog.load(directories: [PackagePaths.templates + "/locales"])
    }

    /// Every key a template names itself plus those handlers put on pages.
    static func usedKeys() throws -> Set<String> {
        var keys = Set(PageText.allCases.map(\.rawValue))
        for template in try templates() { keys.formUnion(template.messageKeys) }
        return keys
    }

    @Test("Every key a template or handler names is in the English catalog")
    func everyUsedKeyIsInEnglish() throws {
        let english = try #require(try Self.catalogs()["en"])
        let missing = try Self.usedKeys().filter { english[$0] == nil }.sorted()
        #expect(missing.isEmpty, "not in en.json: \(missing)")
    }

    @Test("No catalog has a key that no template or handler uses")
    func noUnusedKeys() throws {
        let used = try Self.usedKeys()
        for (language, catalog) in try Self.catalogs() {
            let unused = catalog.keys.filter { !used.contains($0) }
            #expect(unused.isEmpty, "\(language).json has keys nothing uses: \(unused)")
        }
    }

    @Test("A translation names only the placeholders its English text names")
    func placeholdersMatchEnglish() throws {
        let catalogs = try Self.catalogs()
        let english = try #require(catalogs["en"])
        for (language, catalog) in catalogs where language != "en" {
            for key in catalog.keys {
                guard let original = english[key], let translated = catalog[key] else { continue }
                let extra = Set(translated.placeholders).subtracting(original.placeholders)
                #expect(extra.isEmpty, "\(language).json \(key) names \(extra.sorted()), which English does not give")
            }
        }
    }

    @Test("No English is left in a template: outside tags, markup and comments only the stores' names remain")
    func noEnglishInTemplates() throws {
        let allowed: Set<String> = ["App", "Store", "Google", "Play", "Subject"]
        let root = PackagePaths.templates
        let files = try FileManager.default.subpathsOfDirectory(atPath: root)
            .filter { ($0.hasSuffix(".html") || $0.hasSuffix(".txt")) && !$0.hasPrefix("locales/") }
        #expect(files.count > 30)
        for file in files {
            var text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            for pattern in [#"\{\{![\s\S]*?\}\}"#, #"<pre>[\s\S]*?</pre>"#, #"\{\{\{[\s\S]*?\}\}\}"#, #"\{\{[\s\S]*?\}\}"#] {
                text = text.replacingOccurrences(of: pattern, with: " ", options: .regularExpression)
            }
            // Attributes people read must hold only values.
            let readable = #"(?:aria-label|alt|title|placeholder|data-copied|data-copy-failed)="([^"]*)""#
            let expression = try NSRegularExpression(pattern: readable)
            for match in expression.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let value = (text as NSString).substring(with: match.range(at: 1))
                #expect(value.trimmingCharacters(in: .whitespaces).isEmpty, "\(file): attribute text \"\(value)\"")
            }
            text = text.replacingOccurrences(of: #"<[^>]*>"#, with: " ", options: .regularExpression)
            text = text.replacingOccurrences(of: #"&[a-z#0-9]+;"#, with: " ", options: .regularExpression)
            let words = text.split(whereSeparator: { !$0.isLetter }).map(String.init).filter { $0.count > 1 && !allowed.contains($0) }
            #expect(words.isEmpty, "\(file) still has text of its own: \(words.prefix(8))")
        }
    }

    @Test("Every shipped catalog builds with the templates")
    func everyCatalogBuilds() throws {
        let localized = try ShippedTemplates.shared
        #expect(localized.languages.contains("en"))
        for language in localized.languages {
            #expect(localized.library(for: language).contains("success"))
        }
    }
}
