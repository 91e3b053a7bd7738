/// Turns template source into a node tree in one pass over its UTF-8 bytes.
///
/// Tags are `{{name}}`, `{{{name}}}`, `{{& name}}`, `{{#name}}`, `{{^name}}`, `{{/name}}`,
/// `{{> partial}}`, `{{! comment }}` and the catalog's messages `{{@key}}`, `{{@key count}}` (a
/// plural message whose form follows the value `count`) and `{{{@key}}}` (the message's own text
/// written unescaped: for messages that carry markup). A section, inverted, closing, partial or comment tag
/// alone on its line (only spaces or tabs around it) is "standalone": the whole line, with its
/// newline, is removed. Set-delimiter tags (`{{=<% %>=}}`) are not supported.
struct TemplateParser {
    private let source: [UInt8]
    private let file: String

    init(source: String, file: String) {
        self.source = Array(source.utf8)
        self.file = file
    }

    private enum TagKind {
        case variable, raw, section, inverted, close, partial, comment, message
    }

    /// A section being parsed: its name, where it opened and the children read so far.
    private struct Frame {
        let path: [String]
        let name: String
        let inverted: Bool
        let open: Int
        var children: [TemplateNode] = []
    }

    /// Parses the whole source.
    /// - Throws: `TemplateError` at the offending tag for unclosed tags, unclosed or
    ///   mismatched sections, invalid names and unsupported tags.
    func parse() throws -> [TemplateNode] {
        var root: [TemplateNode] = []
        var frames: [Frame] = []
        var textStart = 0
        var cursor = 0
        let count = source.count
        var lines = LineCounter(source: source)

        func append(_ node: TemplateNode) {
            if frames.isEmpty { root.append(node) } else { frames[frames.count - 1].children.append(node) }
        }
        func appendText(_ start: Int, _ end: Int) {
            if start < end { append(.text(Array(source[start..<end]))) }
        }

        while let open = find(UInt8(ascii: "{"), UInt8(ascii: "{"), from: cursor) {
            var contentStart = open + 2
            let contentEnd: Int
            let tagEnd: Int
            var kind = TagKind.variable
            var rawMessage = false
            guard contentStart < count else { throw error(at: open, "tag opened here is never closed") }

            if source[contentStart] == UInt8(ascii: "{") {
                kind = .raw
                contentStart += 1
                guard let close = find(UInt8(ascii: "}"), UInt8(ascii: "}"), UInt8(ascii: "}"), from: contentStart) else {
                    throw error(at: open, "triple-brace tag opened here is never closed with }}}")
                }
                contentEnd = close
                tagEnd = close + 3
                if contentStart < close, source[contentStart] == UInt8(ascii: "@") {
                    kind = .message
                    rawMessage = true
                    contentStart += 1
                }
            } else {
                switch source[contentStart] {
                case UInt8(ascii: "&"): kind = .raw
                case UInt8(ascii: "#"): kind = .section
                case UInt8(ascii: "^"): kind = .inverted
                case UInt8(ascii: "/"): kind = .close
                case UInt8(ascii: ">"): kind = .partial
                case UInt8(ascii: "!"): kind = .comment
                case UInt8(ascii: "@"): kind = .message
                case UInt8(ascii: "="): throw error(at: open, "set-delimiter tags are not supported")
                default: kind = .variable
                }
                if kind != .variable { contentStart += 1 }
                guard let close = find(UInt8(ascii: "}"), UInt8(ascii: "}"), from: contentStart) else {
                    throw error(at: open, "tag opened here is never closed")
                }
                contentEnd = close
                tagEnd = close + 2
            }

            // Standalone lines lose their indentation, the tag and the line ending.
            var textEnd = open
            var next = tagEnd
            if kind != .variable && kind != .raw && kind != .message, let line = standaloneLine(tagStart: open, tagEnd: tagEnd) {
                textEnd = max(line.start, textStart)
                next = line.end
            }
            appendText(textStart, textEnd)
            textStart = next
            cursor = next

            let name = trimmed(contentStart, contentEnd)
            switch kind {
            case .comment:
                break
            case .variable, .raw:
                append(.variable(path: try path(name, at: open), escaped: kind == .variable))
            case .message:
                let words = name.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).map(String.init)
                guard let key = words.first, words.count <= 2, Message.isPlaceholderName(Substring(key)) else {
                    throw error(at: open, "a message tag is {{@key}} or {{@key count}} (key: letters, digits, _ and -, joined by .)")
                }
                let count = try words.count == 2 ? path(words[1], at: open) : nil
                let at = lines.position(of: open)
                append(
                    .message(
                        key: key, count: count, raw: rawMessage,
                        location: SourceLocation(file: file, line: at.line, column: at.column)))
            case .section, .inverted:
                frames.append(Frame(path: try path(name, at: open), name: name, inverted: kind == .inverted, open: open))
            case .close:
                guard let frame = frames.popLast() else {
                    throw error(at: open, "closing tag {{/\(name)}} has no open section")
                }
                guard frame.name == name else {
                    let opened = position(of: frame.open)
                    throw error(
                        at: open,
                        "closing tag {{/\(name)}} does not match section \"\(frame.name)\" opened at line \(opened.line), column \(opened.column)"
                    )
                }
                append(.section(path: frame.path, inverted: frame.inverted, children: frame.children))
            case .partial:
                guard isValidName(name, allowingSlash: true) else {
                    throw error(at: open, "invalid partial name \"\(name)\"")
                }
                let at = lines.position(of: open)
                append(.partial(name: name, location: SourceLocation(file: file, line: at.line, column: at.column)))
            }
        }
        appendText(textStart, count)
        if let unclosed = frames.last {
            throw error(at: unclosed.open, "section \"\(unclosed.name)\" opened here is never closed")
        }
        return root
    }

    /// The line around a tag if the tag stands alone on it: `start` is the line's first byte,
    /// `end` is just past its line ending (or the end of the source).
    private func standaloneLine(tagStart: Int, tagEnd: Int) -> (start: Int, end: Int)? {
        var start = tagStart
        while start > 0, isBlank(source[start - 1]) { start -= 1 }
        guard start == 0 || source[start - 1] == UInt8(ascii: "\n") else { return nil }
        var end = tagEnd
        while end < source.count, isBlank(source[end]) { end += 1 }
        if end == source.count { return (start, end) }
        if source[end] == UInt8(ascii: "\n") { return (start, end + 1) }
        if source[end] == UInt8(ascii: "\r"), end + 1 < source.count, source[end + 1] == UInt8(ascii: "\n") {
            return (start, end + 2)
        }
        return nil
    }

    /// Splits a tag name into its dotted path; `.` is the empty path.
    private func path(_ name: String, at offset: Int) throws -> [String] {
        if name == "." { return [] }
        guard isValidName(name, allowingSlash: false) else {
            throw error(at: offset, name.isEmpty ? "tag has no name" : "invalid name \"\(name)\" (use letters, digits, _ and -, joined by .)")
        }
        return name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    private func isValidName(_ name: String, allowingSlash: Bool) -> Bool {
        guard !name.isEmpty else { return false }
        var previous = UInt8(ascii: ".")
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
                break
            case UInt8(ascii: "."), UInt8(ascii: "/"):
                // Separators join non-empty parts; a slash only in partial names.
                if byte == UInt8(ascii: "/") && !allowingSlash { return false }
                if previous == UInt8(ascii: ".") || previous == UInt8(ascii: "/") { return false }
            default:
                return false
            }
            previous = byte
        }
        return previous != UInt8(ascii: ".") && previous != UInt8(ascii: "/")
    }

    private func trimmed(_ start: Int, _ end: Int) -> String {
        var start = start, end = end
        while start < end, isSpace(source[start]) { start += 1 }
        while end > start, isSpace(source[end - 1]) { end -= 1 }
        return String(decoding: source[start..<end], as: UTF8.self)
    }

    @inline(__always)
    private func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }

    @inline(__always)
    private func isSpace(_ byte: UInt8) -> Bool {
        isBlank(byte) || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
    }

    private func find(_ first: UInt8, _ second: UInt8, from start: Int) -> Int? {
        var index = start
        while index + 1 < source.count {
            if source[index] == first && source[index + 1] == second { return index }
            index += 1
        }
        return nil
    }

    private func find(_ first: UInt8, _ second: UInt8, _ third: UInt8, from start: Int) -> Int? {
        var index = start
        while index + 2 < source.count {
            if source[index] == first && source[index + 1] == second && source[index + 2] == third { return index }
            index += 1
        }
        return nil
    }

    /// 1-based line and column (in characters) of a byte offset.
    private func position(of offset: Int) -> (line: Int, column: Int) {
        var lines = LineCounter(source: source)
        return lines.position(of: offset)
    }

    private func error(at offset: Int, _ message: String) -> TemplateError {
        let at = position(of: offset)
        return TemplateError(file: file, line: at.line, column: at.column, message: message)
    }
}

/// Line and column (in characters, from 1) of offsets in a source. Counting goes on from the
/// offset asked for last, so the tags of a template, met in order, cost one pass over it
/// together rather than one pass each.
private struct LineCounter {
    let source: [UInt8]
    private var offset = 0
    private var line = 1
    private var lineStart = 0

    init(source: [UInt8]) { self.source = source }

    mutating func position(of target: Int) -> (line: Int, column: Int) {
        if target < offset { (offset, line, lineStart) = (0, 1, 0) }
        while offset < target {
            if source[offset] == UInt8(ascii: "\n") {
                line += 1
                lineStart = offset + 1
            }
            offset += 1
        }
        return (line, String(decoding: source[lineStart..<target], as: UTF8.self).count + 1)
    }
}
