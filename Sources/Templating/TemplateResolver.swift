/// Where a library's `{{@key}}` texts come from: one language's catalog and the catalog
/// (English) that fills the keys it lacks.
public struct MessageSource: Sendable {
    /// The language's own catalog.
    public let catalog: MessageCatalog
    /// The catalog used for a key `catalog` lacks (nil: none, a missing key is an error).
    public let fallback: MessageCatalog?

    /// Messages from `catalog`, then `fallback`.
    public init(catalog: MessageCatalog, fallback: MessageCatalog?) {
        self.catalog = catalog
        self.fallback = fallback
    }
}

/// Builds one template's final node tree: partials inlined, messages replaced by their text
/// (escaped as the template escapes) and their placeholders by variables.
struct TemplateResolver {
    let templates: [String: Template]
    let messages: MessageSource?
    /// Whether the template being built is HTML (its messages' text is escaped).
    let escapes: Bool
    /// Keys that came from the fallback catalog.
    private(set) var fallbackKeys: Set<String> = []

    init(templates: [String: Template], messages: MessageSource?, escapes: Bool) {
        self.templates = templates
        self.messages = messages
        self.escapes = escapes
    }

    /// Replaces every partial tag in `nodes` by the partial's own (resolved) nodes and every
    /// message tag by its text.
    mutating func resolve(_ nodes: [TemplateNode], chain: [String]) throws -> [TemplateNode] {
        var resolved: [TemplateNode] = []
        resolved.reserveCapacity(nodes.count)
        for node in nodes {
            switch node {
            case .text, .variable, .plural:
                resolved.append(node)
            case .section(let path, let inverted, let children):
                let inner = try resolve(children, chain: chain)
                resolved.append(.section(path: path, inverted: inverted, children: inner))
            case .message(let key, let count, let raw, let location):
                resolved.append(contentsOf: try message(key, count: count, raw: raw, at: location))
            case .partial(let name, let location):
                guard let partial = templates[name] else {
                    throw TemplateError(
                        file: location.file, line: location.line, column: location.column,
                        message: "unknown partial \"\(name)\""
                    )
                }
                let limit = TemplateLibrary.maximumPartialDepth
                if chain.contains(name) || chain.count > limit {
                    let path = (chain + [name]).joined(separator: " → ")
                    let reason = chain.contains(name) ? "partial \"\(name)\" includes itself" : "partials nest deeper than \(limit) levels"
                    throw TemplateError(
                        file: location.file, line: location.line, column: location.column,
                        message: "\(reason): \(path)"
                    )
                }
                resolved.append(contentsOf: try resolve(partial.nodes, chain: chain + [name]))
            }
        }
        return TemplateLibrary.merged(resolved)
    }

    /// The nodes of message `key`.
    private mutating func message(_ key: String, count: [String]?, raw: Bool, at location: SourceLocation) throws -> [TemplateNode] {
        func failure(_ text: String) -> TemplateError {
            TemplateError(file: location.file, line: location.line, column: location.column, message: text)
        }
        guard let messages else { throw failure("{{@\(key)}}: this library has no message catalog") }
        let found: Message
        var rule = messages.catalog.pluralRule
        if let own = messages.catalog[key] {
            found = own
        } else if let fallback = messages.fallback, let other = fallback[key] {
            found = other
            rule = fallback.pluralRule
            fallbackKeys.insert(key)
        } else {
            throw failure("no message \"\(key)\" in the \"\(messages.catalog.language)\" catalog")
        }
        switch found {
        case .text(let text):
            return nodes(of: text, raw: raw)
        case .plural(let forms):
            guard let count else { throw failure("\"\(key)\" has plural forms: name its count, {{@\(key) count}}") }
            let other = nodes(of: forms[.other] ?? "", raw: raw)
            let built = PluralCategory.allCases.map { category in
                category == .other ? other : forms[category].map { nodes(of: $0, raw: raw) } ?? []
            }
            return [.plural(path: count, rule: rule, forms: built)]
        }
    }

    /// A message text as literal text (escaped in HTML unless `raw`) and escaped variables.
    private func nodes(of text: String, raw: Bool) -> [TemplateNode] {
        Message.parts(of: text).map { part in
            switch part {
            case .literal(let literal):
                .text(escapes && !raw ? TemplateResolver.escapeText(literal) : Array(literal.utf8))
            case .placeholder(let path):
                .variable(path: path, escaped: true)
            }
        }
    }

    /// A message's own text for HTML: `&`, `<`, `>` and `"` as references (its text goes into
    /// element content or double-quoted attributes; apostrophes stay as written).
    static func escapeText(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): bytes.append(contentsOf: Array("&amp;".utf8))
            case UInt8(ascii: "<"): bytes.append(contentsOf: Array("&lt;".utf8))
            case UInt8(ascii: ">"): bytes.append(contentsOf: Array("&gt;".utf8))
            case UInt8(ascii: "\""): bytes.append(contentsOf: Array("&quot;".utf8))
            default: bytes.append(byte)
            }
        }
        return bytes
    }
}
