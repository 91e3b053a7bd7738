/// A strict RFC 8259 validator: one pass over the bytes, no recursion, nesting bounded.
///
/// Foundation's readers are lenient (trailing commas, duplicate keys and more), so every
/// JSON body is checked here first. Refused, beyond plain syntax errors: trailing commas,
/// duplicate keys in any object (compared after unescaping), lone UTF-16 surrogate escapes,
/// unescaped control characters (U+0000–U+001F), invalid UTF-8 (overlong forms and encoded
/// surrogates included), a byte-order mark, and nesting deeper than `maxDepth`.
/// `JSONValue.parse` is this same validator, handing what it reads to a value builder.
public enum StrictJSON {
    /// Why a document was refused: the reason and where, as a byte offset and as the line and
    /// column (both from 1, columns counting characters) an editor shows.
    public struct Violation: Error, Equatable, Sendable, CustomStringConvertible {
        public let reason: String
        public let offset: Int
        public let line: Int
        public let column: Int

        /// `reason` at `offset` of `bytes`, line and column counted there.
        init(reason: String, offset: Int, in bytes: UnsafeBufferPointer<UInt8>) {
            self.reason = reason
            self.offset = offset
            var line = 1
            var column = 1
            for byte in bytes.prefix(offset) {
                if byte == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else if byte & 0xC0 != 0x80 {
                    column += 1
                }
            }
            self.line = line
            self.column = column
        }

        /// "reason at byte N" (what a 400 answer shows).
        public var description: String { "\(reason) at byte \(offset)" }

        /// "reason at line L, column C" (what a person editing a file needs).
        public var lineAndColumnDescription: String { "\(reason) at line \(line), column \(column)" }
    }

    /// The nesting limit of `validate` unless told otherwise (also the most it allows).
    public static let defaultMaxDepth = 64

    /// Nil when `bytes` is one strict JSON text (any value, surrounded by optional whitespace)
    /// nested at most `maxDepth` (≤ 64) levels deep.
    public static func validate(_ bytes: [UInt8], maxDepth: Int = defaultMaxDepth) -> Violation? {
        var none = NoEvents()
        do throws(Violation) {
            try run(bytes, maxDepth: maxDepth, events: &none)
            return nil
        } catch {
            return error
        }
    }

    /// Validates `bytes`, telling `events` what it reads.
    static func run<Events: JSONEvents>(_ bytes: [UInt8], maxDepth: Int, events: inout Events) throws(Violation) {
        let violation = bytes.withUnsafeBufferPointer { buffer -> Violation? in
            var validator = Validator(bytes: buffer, maxDepth: maxDepth, events: events)
            defer { events = validator.events }
            do throws(Violation) {
                try validator.run()
                return nil
            } catch {
                return error
            }
        }
        if let violation { throw violation }
    }

    /// The validator proper. It reads through an unsafe buffer pointer because it runs on every
    /// JSON request body, the redemption hot path included; `bytes` lives for the whole run
    /// (the caller's `withUnsafeBufferPointer`) and every read is bounds-checked by hand first.
    /// `Events` is `NoEvents` there (every call to it compiles to nothing, strings are not
    /// collected), and a value builder for `JSONValue.parse`.
    private struct Validator<Events: JSONEvents> {
        let bytes: UnsafeBufferPointer<UInt8>
        let maxDepth: Int
        var events: Events
        var index = 0
        /// Open containers, innermost last: `{` or `[`.
        var containers = ContainerStack()
        /// The keys of the open objects, outermost first; see `KeyTable`.
        var keys = KeyTable()

        init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, events: Events) {
            self.bytes = bytes
            self.maxDepth = min(maxDepth, ContainerStack.capacity)
            self.events = events
        }

        private enum Expecting { case value, valueOrClose, key, keyOrClose, separatorOrClose }

        mutating func run() throws(Violation) {
            var expecting = Expecting.value
            while true {
                skipWhitespace()
                switch expecting {
                case .value, .valueOrClose:
                    guard index < bytes.count else { throw fail("the document ends where a value was expected") }
                    let byte = bytes[index]
                    if byte == UInt8(ascii: "]") {
                        guard expecting == .valueOrClose else {
                            throw fail(containers.last == UInt8(ascii: "[") ? "trailing comma in an array" : "']' where a value was expected")
                        }
                        index += 1
                        containers.removeLast()
                        events.endContainer()
                        expecting = .separatorOrClose
                        continue
                    }
                    switch byte {
                    case UInt8(ascii: "{"):
                        try open(byte)
                        keys.openObject()
                        events.beginContainer(isObject: true)
                        expecting = .keyOrClose
                    case UInt8(ascii: "["):
                        try open(byte)
                        events.beginContainer(isObject: false)
                        expecting = .valueOrClose
                    case UInt8(ascii: "\""):
                        if Events.wantsValues {
                            let value = try string(collecting: true)
                            events.string(keys.withBytes(of: value, input: bytes) { String(decoding: $0, as: UTF8.self) })
                        } else {
                            _ = try string(collecting: false)
                        }
                        expecting = .separatorOrClose
                    case UInt8(ascii: "t"):
                        try literal("true")
                        events.literal(.bool(true))
                        expecting = .separatorOrClose
                    case UInt8(ascii: "f"):
                        try literal("false")
                        events.literal(.bool(false))
                        expecting = .separatorOrClose
                    case UInt8(ascii: "n"):
                        try literal("null")
                        events.literal(.null)
                        expecting = .separatorOrClose
                    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                        let start = index
                        try number()
                        if Events.wantsValues { events.number(UnsafeBufferPointer(rebasing: bytes[start..<index])) }
                        expecting = .separatorOrClose
                    case 0xEF where bytes.count - index >= 3 && bytes[index + 1] == 0xBB && bytes[index + 2] == 0xBF:
                        throw fail("a byte-order mark is not allowed")
                    default:
                        throw fail("unexpected \(describe(byte)) where a value was expected")
                    }
                case .key, .keyOrClose:
                    guard index < bytes.count else { throw fail("the document ends where a key was expected") }
                    if bytes[index] == UInt8(ascii: "}") {
                        guard expecting == .keyOrClose else { throw fail("trailing comma in an object") }
                        index += 1
                        containers.removeLast()
                        keys.closeObject()
                        events.endContainer()
                        expecting = .separatorOrClose
                        continue
                    }
                    guard bytes[index] == UInt8(ascii: "\"") else {
                        throw fail("unexpected \(describe(bytes[index])) where a key (a string) was expected")
                    }
                    let keyStart = index
                    let key = try string(collecting: true)
                    guard keys.insert(key, input: bytes) else {
                        index = keyStart
                        throw fail("duplicate key \(keys.withBytes(of: key, input: bytes, quoted))")
                    }
                    if Events.wantsValues { events.key(keys.withBytes(of: key, input: bytes) { String(decoding: $0, as: UTF8.self) }) }
                    skipWhitespace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("':' expected after a key") }
                    index += 1
                    expecting = .value
                case .separatorOrClose:
                    guard let container = containers.last else {
                        guard index == bytes.count else { throw fail("unexpected \(describe(bytes[index])) after the JSON value") }
                        return
                    }
                    guard index < bytes.count else {
                        throw fail("the document ends inside an unclosed \(container == UInt8(ascii: "{") ? "object" : "array")")
                    }
                    let byte = bytes[index]
                    index += 1
                    if byte == UInt8(ascii: ",") {
                        expecting = container == UInt8(ascii: "{") ? .key : .value
                    } else if byte == UInt8(ascii: "}") && container == UInt8(ascii: "{") {
                        containers.removeLast()
                        keys.closeObject()
                        events.endContainer()
                    } else if byte == UInt8(ascii: "]") && container == UInt8(ascii: "[") {
                        containers.removeLast()
                        events.endContainer()
                    } else {
                        index -= 1
                        throw fail("unexpected \(describe(byte)); expected ',' or '\(container == UInt8(ascii: "{") ? "}" : "]")'")
                    }
                }
            }
        }

        private mutating func open(_ byte: UInt8) throws(Violation) {
            guard containers.count < maxDepth else { throw fail("nesting deeper than \(maxDepth) levels") }
            containers.append(byte)
            index += 1
        }

        private mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        private mutating func literal(_ word: StaticString) throws(Violation) {
            let count = word.utf8CodeUnitCount
            let matches =
                bytes.count - index >= count
                && word.withUTF8Buffer { expected in
                    UnsafeBufferPointer(rebasing: bytes[index..<index + count]).elementsEqual(expected)
                }
            guard matches else { throw fail("unexpected \(describe(bytes[index])) where a value was expected") }
            index += count
        }

        /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
        private mutating func number() throws(Violation) {
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("a digit must follow '-'") }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
                if index < bytes.count, isDigit(bytes[index]) { throw fail("a number may not have a leading zero") }
            } else {
                skipDigits()
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard index < bytes.count, isDigit(bytes[index]) else { throw fail("a digit must follow the decimal point") }
                skipDigits()
            }
            if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard index < bytes.count, isDigit(bytes[index]) else { throw fail("a digit must follow the exponent mark") }
                skipDigits()
            }
        }

        private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

        private mutating func skipDigits() {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }

        /// Reads a string starting at its opening quote. With `collecting`, returns a reference
        /// to its content after unescaping (the input's bytes when it has no escapes).
        private mutating func string(collecting: Bool) throws(Violation) -> KeyTable.Key {
            index += 1
            let start = index
            var escaped = false
            while index < bytes.count {
                // Plain printable ASCII, the bulk of any body: eight bytes at a time, then one.
                if bytes.count - index >= 8,
                    Self.isPlainWord(UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self))
                {
                    if escaped { keys.appendEscaped(bytes, index..<index + 8) }
                    index += 8
                    continue
                }
                let byte = bytes[index]
                if byte >= 0x20 && byte < 0x80 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                    if escaped { keys.appendEscaped(bytes, index..<index + 1) }
                    index += 1
                    continue
                }
                if byte == UInt8(ascii: "\"") {
                    defer { index += 1 }
                    guard collecting else { return .none }
                    return escaped ? keys.finishEscaped() : .input(start: start, end: index)
                }
                if byte == UInt8(ascii: "\\") {
                    if collecting && !escaped {
                        keys.beginEscaped(copying: bytes, start..<index)
                        escaped = true
                    }
                    let scalar = try escape()
                    if collecting { keys.appendEscaped(scalar) }
                    continue
                }
                if byte < 0x20 { throw fail("unescaped control character U+00\(hex(byte)) in a string") }
                let length = try utf8Sequence()
                if escaped { keys.appendEscaped(bytes, index - length..<index) }
            }
            throw fail("the document ends inside a string")
        }

        /// Whether none of the eight bytes of `word` is a control character, a quote, a backslash
        /// or non-ASCII (the classic "has a byte less than n / equal to n" bit tricks).
        private static func isPlainWord(_ word: UInt64) -> Bool {
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            let control = (word &- ones &* 0x20) & ~word
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let special = control | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | word
            return special & highs == 0
        }

        /// Reads one escape at `index` (a backslash); a `\u` high surrogate must be followed by a
        /// `\u` low surrogate, and a low one must follow a high one.
        private mutating func escape() throws(Violation) -> Unicode.Scalar {
            guard index + 1 < bytes.count else { throw fail("the document ends inside an escape") }
            let letter = bytes[index + 1]
            let simple: UInt8? =
                switch letter {
                case UInt8(ascii: "\""): 0x22
                case UInt8(ascii: "\\"): 0x5C
                case UInt8(ascii: "/"): 0x2F
                case UInt8(ascii: "b"): 0x08
                case UInt8(ascii: "f"): 0x0C
                case UInt8(ascii: "n"): 0x0A
                case UInt8(ascii: "r"): 0x0D
                case UInt8(ascii: "t"): 0x09
                default: nil
                }
            if let simple {
                index += 2
                return Unicode.Scalar(simple)
            }
            guard letter == UInt8(ascii: "u") else { throw fail("invalid escape '\\\(describeLetter(letter))'") }
            let unit = try hexUnit(at: index + 2)
            switch unit {
            case 0xD800...0xDBFF:
                let lowAt = index + 6
                guard lowAt + 1 < bytes.count, bytes[lowAt] == UInt8(ascii: "\\"), bytes[lowAt + 1] == UInt8(ascii: "u") else {
                    throw fail("lone surrogate \\u\(hex16(unit)) (a high surrogate must be followed by a \\u low surrogate)")
                }
                let low = try hexUnit(at: lowAt + 2)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw fail("lone surrogate \\u\(hex16(unit)) (followed by \\u\(hex16(low)), not a low surrogate)")
                }
                index += 12
                return Unicode.Scalar(0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00))!
            case 0xDC00...0xDFFF:
                throw fail("lone surrogate \\u\(hex16(unit)) (a low surrogate without a high one)")
            default:
                index += 6
                return Unicode.Scalar(unit)!
            }
        }

        private func hexUnit(at position: Int) throws(Violation) -> UInt16 {
            guard position + 4 <= bytes.count else { throw fail("the document ends inside a \\u escape") }
            var value: UInt16 = 0
            for byte in bytes[position..<position + 4] {
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw fail("a \\u escape needs four hex digits")
                }
                value = value << 4 | UInt16(digit)
            }
            return value
        }

        /// Checks the UTF-8 sequence at `index` (Unicode Table 3-7: no overlong forms, no
        /// surrogates, nothing above U+10FFFF), moves past it and returns its length.
        private mutating func utf8Sequence() throws(Violation) -> Int {
            let first = bytes[index]
            if first < 0x80 {
                index += 1
                return 1
            }
            let length: Int
            var secondRange: ClosedRange<UInt8> = 0x80...0xBF
            switch first {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; secondRange = 0xA0...0xBF
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; secondRange = 0x80...0x9F
            case 0xF0: length = 4; secondRange = 0x90...0xBF
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; secondRange = 0x80...0x8F
            default: throw fail("invalid UTF-8 byte 0x\(hex(first))")
            }
            guard bytes.count - index >= length, secondRange.contains(bytes[index + 1]) else {
                throw fail("invalid UTF-8 sequence")
            }
            for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 {
                throw fail("invalid UTF-8 sequence")
            }
            index += length
            return length
        }

        private func fail(_ reason: String) -> Violation { Violation(reason: reason, offset: index, in: bytes) }

        private func describe(_ byte: UInt8) -> String {
            (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(hex(byte))"
        }

        private func describeLetter(_ byte: UInt8) -> String {
            (0x21...0x7E).contains(byte) ? String(Character(Unicode.Scalar(byte))) : "x\(hex(byte))"
        }

        private func quoted(_ key: UnsafeBufferPointer<UInt8>) -> String {
            let text = String(decoding: key.prefix(64), as: UTF8.self)
            let printable = text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : String($0) }.joined()
            return "\"\(printable)\(key.count > 64 ? "..." : "")\""
        }

        private func hex(_ byte: UInt8) -> String {
            let digits = Array("0123456789ABCDEF")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }

        private func hex16(_ unit: UInt16) -> String { hex(UInt8(unit >> 8)) + hex(UInt8(unit & 0xFF)) }
    }
}
