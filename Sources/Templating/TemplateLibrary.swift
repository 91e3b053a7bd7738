internal import Foundation

/// Every template of the service, parsed once with all partials resolved, ready to render.
///
/// Naming: a file's path relative to the directory, with `/` separators. `.html` files lose
/// their extension (`success.html` → `success`, `email/receipt.html` → `email/receipt`);
/// `.txt` files keep it (`email/receipt.txt` → `email/receipt.txt`), so an HTML and a text
/// version of the same email never collide. `.txt` templates are plain text (no escaping).
///
/// Partials are named the same way (`{{> layout_header}}`, `{{> email/footer.txt}}`) and are
/// inlined at load time: an unknown partial, a partial that includes itself (directly or
/// through others) or partials nested more than `maximumPartialDepth` deep are load errors.
/// A standalone partial tag's line is replaced by the partial as written (not re-indented).
public struct TemplateLibrary: Sendable {
    /// How deep partials may nest inside one another.
    public static let maximumPartialDepth = 16

    private struct Compiled: Sendable {
        let nodes: [TemplateNode]
        let escapes: Bool
        /// Literal bytes plus headroom: the buffer capacity reserved before a render.
        let estimatedSize: Int
    }

    private let compiled: [String: Compiled]
    private let origin: String

    /// Loads every `*.html` and `*.txt` file under `directory`, recursively (hidden files and
    /// folders are skipped), parses them all and resolves all partials; `{{@key}}` messages come
    /// from `directory/locales/en.json` when there is one (`LocalizedTemplates` builds the other
    /// languages).
    /// - Throws: `TemplateError` with `file:line:column` for a syntax error or unknown partial,
    ///   or with the file alone when it cannot be read or is not UTF-8.
    public init(directory: String) throws {
        let templates = try TemplateLibrary.parse(directory: directory)
        let english = try MessageCatalog.load(directories: [TemplateLibrary.trimmed(directory) + "/locales"])["en"]
        try self.init(
            templates: templates, origin: TemplateLibrary.trimmed(directory),
            messages: english.map { MessageSource(catalog: $0, fallback: nil) })
    }

    /// Every `*.html` and `*.txt` file under `directory`, parsed (not yet resolved).
    /// - Throws: `TemplateError` as `init(directory:)`.
    public static func parse(directory: String) throws -> [Template] {
        let base = trimmed(directory)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: base, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw TemplateError(file: base, line: 0, column: 0, message: "template directory does not exist")
        }
        var templates: [Template] = []
        for relative in try TemplateLibrary.templateFiles(in: base, relative: "") {
            let path = base + "/" + relative
            guard let data = FileManager.default.contents(atPath: path) else {
                throw TemplateError(file: path, line: 0, column: 0, message: "cannot read template file")
            }
            guard let source = String(validating: Array(data), as: UTF8.self) else {
                throw TemplateError(file: path, line: 0, column: 0, message: "template is not valid UTF-8")
            }
            let name = relative.hasSuffix(".html") ? String(relative.dropLast(5)) : relative
            templates.append(try Template(name: name, source: source, file: path))
        }
        return templates
    }

    private static func trimmed(_ directory: String) -> String {
        directory.hasSuffix("/") ? String(directory.dropLast()) : directory
    }

    /// Parses templates given as name → source (names follow the same rules as files'
    /// names, so a name ending in `.txt` is plain text).
    /// - Throws: `TemplateError` for a syntax error or unknown partial.
    public init(templates: [String: String]) throws {
        let parsed = try templates.keys.sorted().map { name in
            try Template(name: name, source: templates[name] ?? "")
        }
        try self.init(templates: parsed, origin: "templates")
    }

    /// Builds a library from already parsed templates, resolving their partials.
    /// - Throws: `TemplateError` for an unknown partial, a recursive partial or nesting
    ///   deeper than `maximumPartialDepth`.
    public init(templates: [Template]) throws {
        try self.init(templates: templates, origin: "templates")
    }

    /// Builds a library from already parsed templates whose `{{@key}}` tags take their text
    /// from `messages` (a key the language lacks comes from its fallback and is listed in
    /// `fallbackKeys`).
    /// - Throws: `TemplateError` as `init(templates:)`, and at the tag for a key neither catalog
    ///   has or a plural message written without its count.
    public init(templates: [Template], messages: MessageSource) throws {
        try self.init(templates: templates, origin: "templates", messages: messages)
    }

    private init(templates: [Template], origin: String, messages: MessageSource? = nil) throws {
        var byName: [String: Template] = [:]
        for template in templates {
            if let existing = byName[template.name] {
                throw TemplateError(
                    file: template.file, line: 0, column: 0,
                    message: "template name \"\(template.name)\" is also used by \(existing.file)"
                )
            }
            byName[template.name] = template
        }
        var compiled: [String: Compiled] = [:]
        var fallbackKeys: Set<String> = []
        for name in byName.keys.sorted() {
            guard let template = byName[name] else { continue }
            var resolver = TemplateResolver(templates: byName, messages: messages, escapes: !template.isPlainText)
            let nodes = try resolver.resolve(template.nodes, chain: [name])
            fallbackKeys.formUnion(resolver.fallbackKeys)
            compiled[name] = Compiled(
                nodes: nodes, escapes: !template.isPlainText,
                estimatedSize: TemplateLibrary.literalSize(nodes) * 5 / 4 + 256
            )
        }
        self.compiled = compiled
        self.origin = origin
        self.fallbackKeys = fallbackKeys.sorted()
    }

    /// The message keys this library took from the fallback catalog because its own lacks them.
    public let fallbackKeys: [String]

    /// Whether a template named `name` exists.
    public func contains(_ name: String) -> Bool { compiled[name] != nil }

    /// Every template name, sorted.
    public var names: [String] { compiled.keys.sorted() }

    /// Renders the template `name` with `context` as the outermost context.
    /// - Throws: `TemplateError` when there is no template named `name`.
    public func render(_ name: String, _ context: TemplateValue) throws -> String {
        var buffer: [UInt8] = []
        try render(name, context, into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Renders the template `name`, appending its UTF-8 output to `buffer`.
    /// - Throws: `TemplateError` when there is no template named `name`.
    public func render(_ name: String, _ context: TemplateValue, into buffer: inout [UInt8]) throws {
        guard let template = compiled[name] else {
            throw TemplateError(file: origin, line: 0, column: 0, message: "no template named \"\(name)\"")
        }
        buffer.reserveCapacity(buffer.count + template.estimatedSize)
        var stack: [TemplateValue] = [context]
        TemplateRenderer.render(template.nodes, stack: &stack, escapes: template.escapes, into: &buffer)
    }

    /// Joins adjacent text nodes (a partial's edges meet the includer's text) into one copy.
    static func merged(_ nodes: [TemplateNode]) -> [TemplateNode] {
        var result: [TemplateNode] = []
        result.reserveCapacity(nodes.count)
        for node in nodes {
            if case .text(let bytes) = node, case .text(let previous)? = result.last {
                result[result.count - 1] = .text(previous + bytes)
            } else {
                result.append(node)
            }
        }
        return result
    }

    static func literalSize(_ nodes: [TemplateNode]) -> Int {
        nodes.reduce(0) { total, node in
            switch node {
            case .text(let bytes): total + bytes.count
            case .section(_, _, let children): total + literalSize(children)
            case .plural(_, _, let forms): total + (forms.map(literalSize).max() ?? 0)
            case .variable, .partial, .message: total + 16
            }
        }
    }

    /// Relative paths of the `.html` and `.txt` files under `directory`, sorted; hidden
    /// entries are skipped and symbolic links to directories are not followed.
    private static func templateFiles(in base: String, relative: String) throws -> [String] {
        let directory = relative.isEmpty ? base : base + "/" + relative
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw TemplateError(file: directory, line: 0, column: 0, message: "cannot list template directory")
        }
        var files: [String] = []
        for entry in entries.sorted() where !entry.hasPrefix(".") {
            let child = relative.isEmpty ? entry : relative + "/" + entry
            let type = (try? FileManager.default.attributesOfItem(atPath: base + "/" + child))?[.type] as? FileAttributeType
            if type == .typeDirectory {
                files += try templateFiles(in: base, relative: child)
            } else if entry.hasSuffix(".html") || entry.hasSuffix(".txt") {
                files.append(child)
            }
        }
        return files
    }
}
