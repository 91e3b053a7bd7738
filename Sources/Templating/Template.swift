/// One parsed template. Parse templates once at start-up; render them through a
/// `TemplateLibrary`, which resolves `{{> partial}}` tags against its other templates.
///
/// A template whose name ends in `.txt` is plain text: `{{name}}` writes the value without
/// HTML escaping (there is no markup to protect and entities would show up verbatim in a
/// text email). Every other template escapes `{{name}}`.
public struct Template: Sendable {
    /// The name other templates use in `{{> name}}` and callers pass to `render`.
    public let name: String
    /// The file named in error messages (the name when the source did not come from a file).
    public let file: String
    /// Whether `{{name}}` is written unescaped because this is a `.txt` template.
    public let isPlainText: Bool
    let nodes: [TemplateNode]

    /// Parses `source`.
    /// - Parameter file: the path reported in errors; defaults to `name`.
    /// - Throws: `TemplateError` (`file:line:column: message`) on any syntax error.
    public init(name: String, source: String, file: String? = nil) throws {
        self.name = name
        self.file = file ?? name
        self.isPlainText = name.hasSuffix(".txt")
        self.nodes = try TemplateParser(source: source, file: file ?? name).parse()
    }
}

extension Template {
    /// The catalog keys this template names itself (`{{@key}}`), sorted; not its partials'.
    public var messageKeys: [String] {
        var keys: Set<String> = []
        func walk(_ nodes: [TemplateNode]) {
            for node in nodes {
                switch node {
                case .message(let key, _, _, _): keys.insert(key)
                case .section(_, _, let children): walk(children)
                case .plural(_, _, let forms): forms.forEach(walk)
                case .text, .variable, .partial: break
                }
            }
        }
        walk(nodes)
        return keys.sorted()
    }
}
