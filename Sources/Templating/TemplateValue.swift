/// A value handed to a template: the context of a render and everything reachable from it.
///
/// Whether a value is written escaped or raw is chosen by the template (`{{name}}` versus
/// `{{{name}}}` / `{{& name}}`), never by the value, so data can never smuggle markup in.
///
/// Truthiness for sections: `false`, `null`, a missing name, an empty list, an empty string
/// and the integer `0` are "empty" (the section is skipped, an inverted section is rendered);
/// everything else is rendered.
public enum TemplateValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByStringInterpolation,
    ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    case string(String)
    case bool(Bool)
    case int(Int)
    case list([TemplateValue])
    case dictionary([String: TemplateValue])
    case null

    /// A string value.
    public init(stringLiteral value: String) { self = .string(value) }

    /// A boolean value.
    public init(booleanLiteral value: Bool) { self = .bool(value) }

    /// An integer value, written in decimal.
    public init(integerLiteral value: Int) { self = .int(value) }

    /// A list; a section over it renders once per item.
    public init(arrayLiteral elements: TemplateValue...) { self = .list(elements) }

    /// A dictionary; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, TemplateValue)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    /// The null value: renders as nothing and counts as empty in sections.
    public init(nilLiteral: ()) { self = .null }

    /// Whether a section over this value is skipped (and an inverted one rendered).
    var isEmpty: Bool {
        switch self {
        case .null: true
        case .bool(let value): !value
        case .int(let value): value == 0
        case .string(let value): value.isEmpty
        case .list(let items): items.isEmpty
        case .dictionary: false
        }
    }
}
