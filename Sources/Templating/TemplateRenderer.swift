/// Walks a resolved node tree and appends the output to a byte buffer. No Foundation, no
/// intermediate strings: text nodes are copied in bulk and values are escaped byte-wise.
enum TemplateRenderer {
    /// Renders `nodes` with `stack` as the context stack (innermost last).
    static func render(_ nodes: [TemplateNode], stack: inout [TemplateValue], escapes: Bool, into buffer: inout [UInt8]) {
        for node in nodes {
            switch node {
            case .text(let bytes):
                buffer.append(contentsOf: bytes)
            case .variable(let path, let escaped):
                write(lookup(path, in: stack), escaped: escaped && escapes, into: &buffer)
            case .section(let path, let inverted, let children):
                let value = lookup(path, in: stack)
                if inverted {
                    if value.isEmpty { render(children, stack: &stack, escapes: escapes, into: &buffer) }
                    continue
                }
                switch value {
                case .list(let items):
                    for item in items {
                        stack.append(item)
                        render(children, stack: &stack, escapes: escapes, into: &buffer)
                        stack.removeLast()
                    }
                case .bool(true):
                    render(children, stack: &stack, escapes: escapes, into: &buffer)
                default:
                    guard !value.isEmpty else { continue }
                    stack.append(value)
                    render(children, stack: &stack, escapes: escapes, into: &buffer)
                    stack.removeLast()
                }
            case .plural(let path, let rule, let forms):
                let category = rule.category(count(lookup(path, in: stack)))
                let index = PluralCategory.allCases.firstIndex(of: category) ?? PluralCategory.allCases.count - 1
                let chosen = forms[index].isEmpty ? forms[forms.count - 1] : forms[index]
                render(chosen, stack: &stack, escapes: escapes, into: &buffer)
            case .partial, .message:
                // The library replaces every partial and message with its nodes before rendering.
                continue
            }
        }
    }

    /// Mustache lookup: the first key is searched from the innermost context outward; the
    /// rest of a dotted path is looked up only inside what the first key found.
    static func lookup(_ path: [String], in stack: [TemplateValue]) -> TemplateValue {
        guard let first = path.first else { return stack.last ?? .null }
        var found: TemplateValue?
        var index = stack.count - 1
        while index >= 0 {
            if case .dictionary(let entries) = stack[index], let value = entries[first] {
                found = value
                break
            }
            index -= 1
        }
        guard var value = found else { return .null }
        for key in path.dropFirst() {
            guard case .dictionary(let entries) = value, let next = entries[key] else { return .null }
            value = next
        }
        return value
    }

    /// The count a plural message follows: an integer, or a string of decimal digits; else 0.
    private static func count(_ value: TemplateValue) -> Int {
        switch value {
        case .int(let number): number
        case .string(let text): Int(text) ?? 0
        default: 0
        }
    }

    /// Writes a scalar value; lists, dictionaries and null write nothing.
    private static func write(_ value: TemplateValue, escaped: Bool, into buffer: inout [UInt8]) {
        switch value {
        case .string(var text):
            if escaped {
                text.withUTF8 { HTMLEscaping.escape($0, into: &buffer) }
            } else {
                text.withUTF8 { buffer.append(contentsOf: $0) }
            }
        case .int(let number):
            appendDecimal(number, to: &buffer)
        case .bool(let flag):
            buffer.append(contentsOf: flag ? trueBytes : falseBytes)
        case .null, .list, .dictionary:
            break
        }
    }

    private static let trueBytes: [UInt8] = Array("true".utf8)
    private static let falseBytes: [UInt8] = Array("false".utf8)

    private static func appendDecimal(_ number: Int, to buffer: inout [UInt8]) {
        // At most 20 bytes: a small string, built without a heap allocation.
        buffer.append(contentsOf: String(number).utf8)
    }
}
