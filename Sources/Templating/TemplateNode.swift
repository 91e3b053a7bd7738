/// A place in a template's source, for error messages.
struct SourceLocation: Sendable, Equatable {
    let file: String
    let line: Int
    let column: Int
}

/// One node of a parsed template. Names are dotted paths split into keys; an empty path
/// is `.`, the current item.
indirect enum TemplateNode: Sendable {
    /// Literal bytes copied to the output.
    case text([UInt8])
    /// `{{name}}` (escaped) or `{{{name}}}` / `{{& name}}` (raw).
    case variable(path: [String], escaped: Bool)
    /// `{{#name}}…{{/name}}`, or `{{^name}}…{{/name}}` when inverted.
    case section(path: [String], inverted: Bool, children: [TemplateNode])
    /// `{{> name}}`: replaced by the partial's nodes when the library resolves partials.
    case partial(name: String, location: SourceLocation)
}
