internal import Foundation
internal import JSON

/// The texts of one language: `templates/locales/{language}.json`, a flat JSON object of
/// key → text, or key → {plural category → text} for a message that changes with a count
/// (`{"one": "{count} day", "other": "{count} days"}`; `other` is required).
public struct MessageCatalog: Sendable, Equatable {
    /// The language tag, the file's name without `.json` (`en`, `de`, `pt-BR`).
    public let language: String
    /// Key → message.
    public private(set) var messages: [String: Message]

    /// A catalog of `messages` for `language`.
    public init(language: String, messages: [String: Message]) {
        self.language = language
        self.messages = messages
    }

    /// The message of `key`, if this catalog has it.
    public subscript(key: String) -> Message? { messages[key] }

    /// Every key, sorted.
    public var keys: [String] { messages.keys.sorted() }

    /// How this language picks plural forms.
    public var pluralRule: PluralRule { PluralRule(language: language) }

    /// Whether the language is written right to left (Arabic, Hebrew, Persian, Urdu, ...).
    public var isRightToLeft: Bool { LanguageTag.isRightToLeft(language) }

    /// This catalog with `other`'s messages added or replacing its own, key by key.
    public func overridden(by other: MessageCatalog) -> MessageCatalog {
        var merged = self
        for (key, message) in other.messages { merged.messages[key] = message }
        return merged
    }

    /// Parses a catalog file's JSON.
    /// - Throws: `TemplateError` naming `file` and the key when the JSON is not an object of
    ///   strings or plural objects, a key is not a valid name, or a plural lacks `other` or
    ///   names an unknown category.
    public init(language: String, json: [UInt8], file: String) throws {
        guard LanguageTag.isValid(language) else {
            throw TemplateError(file: file, line: 0, column: 0, message: "\"\(language)\" is not a language tag (use e.g. en, de, pt-BR)")
        }
        let object: JSONValue
        do {
            object = try JSONValue.parse(json)
        } catch {
            throw TemplateError(file: file, line: error.line, column: error.column, message: "not valid JSON: \(error.reason)")
        }
        guard case .object(let entries) = object else {
            throw TemplateError(file: file, line: 0, column: 0, message: "a catalog is a JSON object of key → text")
        }
        var messages: [String: Message] = [:]
        for (key, value) in entries {
            guard Message.isPlaceholderName(Substring(key)) else {
                throw TemplateError(file: file, line: 0, column: 0, message: "\"\(key)\" is not a valid key (letters, digits, _ and -, joined by .)")
            }
            if case .string(let text) = value {
                messages[key] = .text(text)
            } else if case .object(let forms) = value {
                var plural: [PluralCategory: String] = [:]
                for (name, form) in forms {
                    guard let category = PluralCategory(rawValue: name), case .string(let text) = form else {
                        throw TemplateError(
                            file: file, line: 0, column: 0,
                            message: "\"\(key)\": a plural form is one of zero, one, two, few, many, other, with a text")
                    }
                    plural[category] = text
                }
                guard plural[.other] != nil else {
                    throw TemplateError(file: file, line: 0, column: 0, message: "\"\(key)\": a plural message needs an \"other\" form")
                }
                messages[key] = .plural(plural)
            } else {
                throw TemplateError(file: file, line: 0, column: 0, message: "\"\(key)\": a text or an object of plural forms")
            }
        }
        self.init(language: language, messages: messages)
    }

    /// Every `*.json` catalog in `directories`, in order: a language found in a later
    /// directory overrides the earlier one's keys (and adds its new ones). A directory that
    /// does not exist is skipped.
    /// - Throws: `TemplateError` for an unreadable or invalid file.
    public static func load(directories: [String]) throws -> [String: MessageCatalog] {
        var catalogs: [String: MessageCatalog] = [:]
        for directory in directories {
            let base = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: base) else { continue }
            for entry in entries.sorted() where entry.hasSuffix(".json") && !entry.hasPrefix(".") {
                let path = base + "/" + entry
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw TemplateError(file: path, line: 0, column: 0, message: "cannot read catalog file")
                }
                let catalog = try MessageCatalog(language: String(entry.dropLast(5)), json: Array(data), file: path)
                catalogs[catalog.language] = catalogs[catalog.language].map { $0.overridden(by: catalog) } ?? catalog
            }
        }
        return catalogs
    }
}
