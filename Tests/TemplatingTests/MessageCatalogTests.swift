import Foundation
import Testing
@testable import Templating

/// Catalogs, `{{@key}}` tags and the per-language build (API.md "The buyer's language").
@Suite("Message catalogs")
struct MessageCatalogTests {
    static func catalog(_ language: String, _ json: String) throws -> MessageCatalog {
        try MessageCatalog(language: language, json: Array(json.utf8), file: "\(language).json")
    }

    static func localized(_ templates: [String: String], _ catalogs: [String: String], defaultLanguage: String = "en") throws -> LocalizedTemplates {
        let parsed = try templates.map { try Template(name: $0.key, source: $0.value) }
        var loaded: [String: MessageCatalog] = [:]
        for (language, json) in catalogs { loaded[language] = try catalog(language, json) }
        return try LocalizedTemplates(templates: parsed, catalogs: loaded, defaultLanguage: defaultLanguage)
    }

    @Test("A catalog is flat key → text or key → plural forms; anything else names the file and key")
    func parsing() throws {
        let parsed = try Self.catalog("de", #"{"a.b": "Hallo {name}", "n": {"one": "{n} Tag", "other": "{n} Tage"}}"#)
        #expect(parsed["a.b"] == .text("Hallo {name}"))
        #expect(parsed["n"] == .plural([.one: "{n} Tag", .other: "{n} Tage"]))
        #expect(parsed.keys == ["a.b", "n"])
        let noOther = #expect(throws: TemplateError.self) { try Self.catalog("de", #"{"n": {"one": "x"}}"#) }
        #expect(noOther?.description == #"de.json: "n": a plural message needs an "other" form"#)
        let badCategory = #expect(throws: TemplateError.self) { try Self.catalog("de", #"{"n": {"several": "x", "other": "y"}}"#) }
        #expect(badCategory?.description.contains("zero, one, two, few, many, other") == true)
        let badKey = #expect(throws: TemplateError.self) { try Self.catalog("de", #"{"a b": "x"}"#) }
        #expect(badKey?.description.contains("\"a b\" is not a valid key") == true)
        #expect(throws: TemplateError.self) { try Self.catalog("de", #"["x"]"#) }
        #expect(throws: TemplateError.self) { try Self.catalog("de", #"{"a": 3}"#) }
        #expect(throws: TemplateError.self) { try Self.catalog("deutsch!", #"{}"#) }
    }

    @Test("A catalog is strict JSON: a key given twice or a trailing comma names its line and column")
    func strictJSON() throws {
        let twice = #expect(throws: TemplateError.self) { try Self.catalog("de", "{\n  \"a\": \"x\",\n  \"a\": \"y\"\n}") }
        #expect(twice?.description == #"de.json:3:3: not valid JSON: duplicate key "a""#)
        let comma = #expect(throws: TemplateError.self) { try Self.catalog("de", #"{"a": "x",}"#) }
        #expect(comma?.line == 1)
        #expect(comma?.description.hasPrefix("de.json:1:") == true)
        #expect(comma?.description.contains("not valid JSON: trailing comma") == true)
        let first = #expect(throws: TemplateError.self) { try Self.catalog("de", #"{"b": 1, "a": 2}"#) }
        #expect(first?.description == #"de.json: "b": a text or an object of plural forms"#, "the first bad key in file order")
    }

    @Test("{{@key}} writes the text escaped in HTML, as is in .txt, with markup only in {{{@key}}}; placeholders are always values")
    func tags() throws {
        let templates = try Self.localized(
            ["page": "<p>{{@hello}}</p><p>{{{@rich}}}</p>", "mail.txt": "{{@hello}}"],
            ["en": #"{"hello": "Hi & bye, {name}", "rich": "<strong>{name}</strong>'s"}"#])
        let page = try templates.english.render("page", ["name": "<b>Ann</b>"])
        #expect(page == "<p>Hi &amp; bye, &lt;b&gt;Ann&lt;/b&gt;</p><p><strong>&lt;b&gt;Ann&lt;/b&gt;</strong>'s</p>")
        #expect(try templates.english.render("mail.txt", ["name": "<b>Ann</b>"]) == "Hi & bye, <b>Ann</b>")
    }

    @Test("A key English lacks is a load error at the tag; a plural needs its count named")
    func loadErrors() throws {
        let missing = #expect(throws: TemplateError.self) {
            try Self.localized(["page": "a\n  {{@nope}}"], ["en": #"{"x": "y"}"#])
        }
        #expect(missing?.description == #"page:2:3: no message "nope" in the "en" catalog"#)
        let plural = #expect(throws: TemplateError.self) {
            try Self.localized(["page": "{{@days}}"], ["en": #"{"days": {"one": "a day", "other": "{n} days"}}"#])
        }
        #expect(plural?.description.contains("name its count, {{@days count}}") == true)
        #expect(throws: TemplateError.self) { try Self.localized(["page": "x"], ["de": "{}"]) }
        #expect(throws: TemplateError.self) { try Self.localized(["page": "x"], ["en": "{}"], defaultLanguage: "fr") }
    }

    @Test(
        "Plural forms follow each language's rule",
        arguments: [
            ("en", 0, "0 days"), ("en", 1, "1 day"), ("en", 2, "2 days"),
            ("fr", 0, "0 jour"), ("fr", 1, "1 jour"), ("fr", 2, "2 jours"),
            ("ja", 1, "1日"), ("ja", 5, "5日"),
            ("ar", 0, "zero"), ("ar", 1, "one"), ("ar", 2, "two"), ("ar", 3, "few 3"), ("ar", 10, "few 10"),
            ("ar", 11, "many 11"), ("ar", 99, "many 99"), ("ar", 100, "other 100"), ("ar", 103, "few 103")
        ])
    func plurals(language: String, count: Int, expected: String) throws {
        let templates = try Self.localized(
            ["page": "{{@days n}}"],
            [
                "en": #"{"days": {"one": "{n} day", "other": "{n} days"}}"#,
                "fr": #"{"days": {"one": "{n} jour", "other": "{n} jours"}}"#,
                "ja": #"{"days": "{n}日"}"#,
                "ar": #"{"days": {"zero": "zero", "one": "one", "two": "two", "few": "few {n}", "many": "many {n}", "other": "other {n}"}}"#
            ])
        #expect(try templates.library(for: language).render("page", ["n": .int(count)]) == expected)
    }

    @Test("Russian-style rules: one for 1 and 21, few for 2–4 and 22, many for 5, 11 and 12")
    func eastSlavic() {
        let rule = PluralRule(language: "ru")
        #expect([1, 21, 2, 22, 5, 11, 12, 111].map(rule.category) == [.one, .one, .few, .few, .many, .many, .many, .many])
    }

    @Test("A key a language lacks comes from English and is reported; the language is matched exactly, then by its primary subtag")
    func fallback() throws {
        let templates = try Self.localized(
            ["page": "{{@a}} {{@b}}"], ["en": #"{"a": "one", "b": "two"}"#, "de": #"{"a": "eins"}"#, "pt-BR": #"{"a": "um", "b": "dois"}"#])
        #expect(try templates.library(for: "de").render("page", [:]) == "eins two")
        #expect(templates.library(for: "de").fallbackKeys == ["b"])
        #expect(templates.missingKeys == ["de": ["b"]])
        #expect(templates.language(for: "de-AT") == "de")
        #expect(templates.language(for: "pt-BR") == "pt-BR")
        #expect(templates.language(for: "xx") == "en")
        #expect(templates.language(for: nil) == "en")
        #expect(templates.text("b", language: "de") == "two")
        #expect(templates.text("nope", language: "de") == nil)
    }

    @Test("An operator's directory adds a language and replaces keys of a shipped one, key by key")
    func overrides() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("locales-\(UUID().uuidString)").path
        for directory in ["shipped", "operator"] {
            try FileManager.default.createDirectory(atPath: root + "/" + directory, withIntermediateDirectories: true)
        }
        try #"{"a": "one", "b": "two"}"#.write(toFile: root + "/shipped/en.json", atomically: true, encoding: .utf8)
        try #"{"b": "TWO"}"#.write(toFile: root + "/operator/en.json", atomically: true, encoding: .utf8)
        try #"{"a": "uno"}"#.write(toFile: root + "/operator/it.json", atomically: true, encoding: .utf8)
        let catalogs = try MessageCatalog.load(directories: [root + "/shipped", root + "/operator", root + "/absent"])
        #expect(catalogs["en"]?.messages == ["a": .text("one"), "b": .text("TWO")])
        #expect(catalogs["it"]?.messages == ["a": .text("uno")])
    }

    @Test("Right-to-left languages are known by their primary subtag")
    func direction() {
        #expect(LanguageTag.isRightToLeft("ar") && LanguageTag.isRightToLeft("he-IL") && LanguageTag.isRightToLeft("fa"))
        #expect(!LanguageTag.isRightToLeft("en") && !LanguageTag.isRightToLeft("ja"))
        #expect(LanguageTag.isValid("pt-BR") && LanguageTag.isValid("zh-Hant-TW") && !LanguageTag.isValid("e") && !LanguageTag.isValid("en_US"))
    }

    @Test("Swift's texts fill placeholders and pick plural forms")
    func formatted() {
        let message = Message.plural([.one: "{n} file in {dir}", .other: "{n} files in {dir}"])
        #expect(message.formatted(["n": "1", "dir": "/x"], count: 1) == "1 file in /x")
        #expect(message.formatted(["n": "3", "dir": "/x"], count: 3) == "3 files in /x")
        #expect(Message.text("{ not a placeholder } {a.b}").formatted([:]) == "{ not a placeholder } {a.b}")
        #expect(message.placeholders == ["dir", "n"])
    }
}
