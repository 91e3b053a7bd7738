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
    /// folders are skipped), parses them all and resolves all partials.
    /// - Throws: `TemplateError` with `file:line:column` for a syntax error or unknown partial,
    ///   or with the file alone when it cannot be read or is not UTF-8.
    public init(directory: String) throws {
        let base = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
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
        try self.init(templates: templates, origin: base)
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

    private init(templates: [Template], origin: String) throws {
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
        for name in byName.keys.sorted() {
            guard let template = byName[name] else { continue }
            let nodes = try TemplateLibrary.resolve(template.nodes, chain: [name], in: byName)
            compiled[name] = Compiled(
                nodes: nodes, escapes: !template.isPlainText,
                estimatedSize: TemplateLibrary.literalSize(nodes) * 5 / 4 + 256
            )
        }
        self.compiled = compiled
        self.origin = origin
    }

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

    /// Replaces every partial tag in `nodes` by the partial's own (resolved) nodes.
    private static func resolve(_ nodes: [TemplateNode], chain: [String], in templates: [String: Template]) throws -> [TemplateNode] {
        var resolved: [TemplateNode] = []
        resolved.reserveCapacity(nodes.count)
        for node in nodes {
            switch node {
            case .text, .variable:
                resolved.append(node)
            case .section(let path, let inverted, let children):
                let inner = try resolve(children, chain: chain, in: templates)
                resolved.append(.section(path: path, inverted: inverted, children: inner))
            case .partial(let name, let location):
                guard let partial = templates[name] else {
                    throw TemplateError(
                        file: location.file, line: location.line, column: location.column,
                        message: "unknown partial \"\(name)\""
                    )
                }
                if chain.contains(name) || chain.count > maximumPartialDepth {
                    let path = (chain + [name]).joined(separator: " → ")
                    let reason = chain.contains(name) ? "partial \"\(name)\" includes itself" : "partials nest deeper than \(maximumPartialDepth) levels"
                    throw TemplateError(
                        file: location.file, line: location.line, column: location.column,
                        message: "\(reason): \(path)"
                    )
                }
                resolved.append(contentsOf: try resolve(partial.nodes, chain: chain + [name], in: templates))
            }
        }
        return merged(resolved)
    }

    /// Joins adjacent text nodes (a partial's edges meet the includer's text) into one copy.
    private static func merged(_ nodes: [TemplateNode]) -> [TemplateNode] {
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

    private static func literalSize(_ nodes: [TemplateNode]) -> Int {
        nodes.reduce(0) { total, node in
            switch node {
            case .text(let bytes): total + bytes.count
            case .section(_, _, let children): total + literalSize(children)
            case .variable, .partial: total + 16
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
