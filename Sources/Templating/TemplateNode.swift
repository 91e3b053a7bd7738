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
    /// `{{@key}}` (`raw`: `{{{@key}}}`), `{{@key count}}`: replaced by the catalog's text when the
    /// library is built for a language.
    case message(key: String, count: [String]?, raw: Bool, location: SourceLocation)
    /// A plural message: the form for the category of the integer at `path` (`forms` indexed as
    /// `PluralCategory.allCases`; an empty form falls back to `other`'s).
    case plural(path: [String], rule: PluralRule, forms: [[TemplateNode]])
}
