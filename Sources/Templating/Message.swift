/// One catalog entry: text with `{placeholder}` arguments, or one such text per plural
/// category. A placeholder names a template value by its dotted path (`{app_name}`,
/// `{purchase.product}`); a `{` that does not open a valid placeholder is literal text.
public enum Message: Sendable, Equatable {
    case text(String)
    case plural([PluralCategory: String])

    /// A part of a message's text: literal text or a placeholder's path.
    enum Part: Equatable {
        case literal(String)
        case placeholder([String])
    }

    /// Every text of the message (one, or one per plural form).
    public var texts: [String] {
        switch self {
        case .text(let text): [text]
        case .plural(let forms): PluralCategory.allCases.compactMap { forms[$0] }
        }
    }

    /// The placeholder names used anywhere in the message, sorted.
    public var placeholders: [String] {
        var names: Set<String> = []
        for text in texts {
            for case .placeholder(let path) in Message.parts(of: text) { names.insert(path.joined(separator: ".")) }
        }
        return names.sorted()
    }

    /// `text` split into literal runs and placeholders.
    static func parts(of text: String) -> [Part] {
        var parts: [Part] = []
        var literal = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "{", let close = text[index...].firstIndex(of: "}") {
                let name = text[text.index(after: index)..<close]
                if isPlaceholderName(name) {
                    if !literal.isEmpty { parts.append(.literal(literal)) }
                    literal = ""
                    parts.append(.placeholder(name.split(separator: ".").map(String.init)))
                    index = text.index(after: close)
                    continue
                }
            }
            literal.append(character)
            index = text.index(after: index)
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        return parts
    }

    /// Letters, digits, `_` and `-`, in non-empty parts joined by `.`.
    static func isPlaceholderName(_ name: Substring) -> Bool {
        guard !name.isEmpty, name.first != ".", name.last != "." else { return false }
        var previousDot = false
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
                previousDot = false
            case UInt8(ascii: "."):
                if previousDot { return false }
                previousDot = true
            default:
                return false
            }
        }
        return true
    }

    /// The message with each placeholder replaced by `arguments[name]` (an unknown placeholder
    /// is left as written); a plural message uses the form `rule` picks for `count`.
    public func formatted(_ arguments: [String: String], count: Int? = nil, rule: PluralRule = .oneOther) -> String {
        let text: String
        switch self {
        case .text(let single):
            text = single
        case .plural(let forms):
            text = forms[rule.category(count ?? 0)] ?? forms[.other] ?? ""
        }
        var result = ""
        for part in Message.parts(of: text) {
            switch part {
            case .literal(let literal): result += literal
            case .placeholder(let path):
                let name = path.joined(separator: ".")
                result += arguments[name] ?? "{\(name)}"
            }
        }
        return result
    }
}
