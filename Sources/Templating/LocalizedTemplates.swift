/// The templates built once per language: every catalog's texts are placed into the
/// templates at load time, so a render in any language costs what an English one does (no
/// lookup per message). English (`en`) is the complete catalog every other falls back to.
public struct LocalizedTemplates: Sendable {
    /// The language used when none is asked for or the one asked for has no catalog.
    public let defaultLanguage: String
    /// Language → its catalog (as loaded, without the English fill-in).
    public let catalogs: [String: MessageCatalog]
    private let libraries: [String: TemplateLibrary]

    /// The language of the fallback catalog, which must hold every key the templates use.
    public static let fallbackLanguage = "en"

    /// Builds one library per catalog.
    /// - Throws: `TemplateError` when there is no `en` catalog, `defaultLanguage` has no
    ///   catalog, or a template is invalid or names a key English lacks.
    public init(templates: [Template], catalogs: [String: MessageCatalog], defaultLanguage: String = "en") throws {
        guard let english = catalogs[Self.fallbackLanguage] else {
            throw TemplateError(file: "locales", line: 0, column: 0, message: "there is no English catalog (en.json)")
        }
        guard catalogs[defaultLanguage] != nil else {
            throw TemplateError(
                file: "locales", line: 0, column: 0,
                message: "locales.default is \"\(defaultLanguage)\" but there is no catalog \(defaultLanguage).json")
        }
        var libraries: [String: TemplateLibrary] = [:]
        for (language, catalog) in catalogs {
            let fallback = language == Self.fallbackLanguage ? nil : english
            libraries[language] = try TemplateLibrary(templates: templates, messages: MessageSource(catalog: catalog, fallback: fallback))
        }
        self.catalogs = catalogs
        self.libraries = libraries
        self.defaultLanguage = defaultLanguage
    }

    /// Loads the templates under `directory` and the catalogs of `directory/locales`, then those
    /// of `overrides` (the operator's `locales.dir`), which add languages or replace keys.
    /// - Throws: `TemplateError` as `init(templates:catalogs:defaultLanguage:)` and for an
    ///   unreadable or invalid template or catalog file.
    public init(directory: String, overrides: String? = nil, defaultLanguage: String = "en") throws {
        let base = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        let catalogs = try MessageCatalog.load(directories: [base + "/locales"] + (overrides.map { [$0] } ?? []))
        try self.init(templates: try TemplateLibrary.parse(directory: base), catalogs: catalogs, defaultLanguage: defaultLanguage)
    }

    /// Every language with a catalog, sorted.
    public var languages: [String] { libraries.keys.sorted() }

    /// The catalog language that serves `language`: itself when it has a catalog, else its
    /// primary subtag's (`de-AT` → `de`), else the default language.
    public func language(for language: String?) -> String {
        guard let language else { return defaultLanguage }
        if libraries[language] != nil { return language }
        let primary = LanguageTag.primary(language)
        return libraries[primary] != nil ? primary : defaultLanguage
    }

    /// The templates of `language` (see `language(for:)`).
    public func library(for language: String?) -> TemplateLibrary {
        libraries[self.language(for: language)] ?? libraries[defaultLanguage]!
    }

    /// The English templates (tests and tools that need one language).
    public var english: TemplateLibrary { libraries[Self.fallbackLanguage]! }

    /// Language → the keys its catalog lacks (filled in from English), for the languages that
    /// lack any.
    public var missingKeys: [String: [String]] {
        guard let english = catalogs[Self.fallbackLanguage] else { return [:] }
        var result: [String: [String]] = [:]
        for (language, catalog) in catalogs where language != Self.fallbackLanguage {
            let missing = english.keys.filter { catalog[$0] == nil }
            if !missing.isEmpty { result[language] = missing }
        }
        return result
    }

    /// The text of `key` in `language` (English when that catalog lacks it; nil when English
    /// lacks it too), its placeholders filled from `arguments`. For texts Swift code writes.
    public func text(_ key: String, language: String?, _ arguments: [String: String] = [:], count: Int? = nil) -> String? {
        let chosen = catalogs[self.language(for: language)]
        if let message = chosen?[key] {
            return message.formatted(arguments, count: count, rule: chosen?.pluralRule ?? .oneOther)
        }
        guard let english = catalogs[Self.fallbackLanguage], let message = english[key] else { return nil }
        return message.formatted(arguments, count: count, rule: english.pluralRule)
    }
}
