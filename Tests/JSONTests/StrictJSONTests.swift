import Testing
import JSON

/// `StrictJSON`: RFC 8259 exactly, including what Foundation's readers let through.
@Suite struct StrictJSONTests {
    @Test(arguments: [
        #"{}"#, #"[]"#, #""""#, "0", "-0", "1.5e-3", "-12E+4", "true", "false", "null", " \t\r\n{ } \n",
        #"{"a":1,"b":[1,2,{"c":null}],"d":{"e":"f"}}"#,
        #"{"a":"\"\\\/\b\f\n\r\t\u0000\u00e9\uD83D\uDE00"}"#,
        #"{"a":1,"\u0062":2}"#,
        #"{"code":1,"\u0063odes":2,"cod":3,"long key that spans words":4,"long key that spans words!":5}"#,
        #"[{"a":1},{"a":1}]"#,  // the same key in sibling objects is fine
        #"{"a":{"a":{"a":1}}}"#,  // and in nested ones
        "{\"é😀\":\"ü\"}"
    ])
    func accepts(_ text: String) {
        #expect(StrictJSON.validate(Array(text.utf8)) == nil, "\(text)")
    }

    @Test(arguments: [
        (#"{"a":1,}"#, "trailing comma in an object at byte 7"),
        (#"[1,2,]"#, "trailing comma in an array at byte 5"),
        (#"{"a":[1,]}"#, "trailing comma in an array at byte 8"),
        (#"{"a":1,"a":2}"#, "duplicate key \"a\" at byte 7"),
        (#"{"x":[{"k":1,"\u006b":2}]}"#, "duplicate key \"k\" at byte 13"),
        (#"{"code":1,"\u0063ode":2}"#, "duplicate key \"code\" at byte 10"),
        (#"{"c\u00f6de":1,"cöde":2}"#, "duplicate key \"cöde\" at byte 15"),
        (#"{"a\"b":1,"a\u0022b":2}"#, "duplicate key \"a\"b\" at byte 10"),
        (#"["\ud800"]"#, "lone surrogate \\uD800 (a high surrogate must be followed by a \\u low surrogate) at byte 2"),
        (#"["\ud800\u0041"]"#, "lone surrogate \\uD800 (followed by \\u0041, not a low surrogate) at byte 2"),
        (#"["\udc00"]"#, "lone surrogate \\uDC00 (a low surrogate without a high one) at byte 2"),
        ("[\"a\u{0}\"]", "unescaped control character U+0000 in a string at byte 3"),
        ("[\"\u{1F}\"]", "unescaped control character U+001F in a string at byte 2"),
        ("{\"\t\":1}", "unescaped control character U+0009 in a string at byte 2"),
        ("01", "a number may not have a leading zero at byte 1"),
        ("1.", "a digit must follow the decimal point at byte 2"),
        ("-", "a digit must follow '-' at byte 1"),
        ("1e", "a digit must follow the exponent mark at byte 2"),
        ("+1", "unexpected '+' where a value was expected at byte 0"),
        (".5", "unexpected '.' where a value was expected at byte 0"),
        ("NaN", "unexpected 'N' where a value was expected at byte 0"),
        ("tru", "unexpected 't' where a value was expected at byte 0"),
        ("{} {}", "unexpected '{' after the JSON value at byte 3"),
        ("", "the document ends where a value was expected at byte 0"),
        ("[1", "the document ends inside an unclosed array at byte 2"),
        (#"{"a""#, "':' expected after a key at byte 4"),
        (#"{"a":1 "b":2}"#, "unexpected '\"'; expected ',' or '}' at byte 7"),
        ("[1}", "unexpected '}'; expected ',' or ']' at byte 2"),
        ("{1:2}", "unexpected '1' where a key (a string) was expected at byte 1"),
        ("['a']", "unexpected ''' where a value was expected at byte 1"),
        (#"["\x"]"#, "invalid escape '\\x' at byte 2"),
        (#"["\u12"]"#, "a \\u escape needs four hex digits at byte 2"),
        (#"["abc"#, "the document ends inside a string at byte 5")
    ])
    func refuses(_ text: String, _ expected: String) {
        #expect(StrictJSON.validate(Array(text.utf8))?.description == expected, "\(text)")
    }

    @Test(
        arguments: [
            ([0x22, 0xC0, 0xAF, 0x22], "invalid UTF-8 byte 0xC0 at byte 1"),  // overlong '/'
            ([0x22, 0xED, 0xA0, 0x80, 0x22], "invalid UTF-8 sequence at byte 1"),  // encoded surrogate
            ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], "invalid UTF-8 sequence at byte 1"),  // above U+10FFFF
            ([0x22, 0xE2, 0x82, 0x22], "invalid UTF-8 sequence at byte 1"),  // truncated
            ([0x22, 0xFF, 0x22], "invalid UTF-8 byte 0xFF at byte 1"),
            ([0xEF, 0xBB, 0xBF, 0x7B, 0x7D], "a byte-order mark is not allowed at byte 0")
        ] as [([UInt8], String)])
    func refusesBadUTF8(_ bytes: [UInt8], _ expected: String) {
        #expect(StrictJSON.validate(bytes)?.description == expected)
    }

    @Test func nestingIsBoundedWithoutRecursion() {
        let atLimit = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(StrictJSON.validate(Array(atLimit.utf8)) == nil)
        let over = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(StrictJSON.validate(Array(over.utf8))?.description == "nesting deeper than 64 levels at byte 64")
        // A megabyte of brackets is refused at the limit, not by exhausting the stack.
        let deep = [UInt8](repeating: UInt8(ascii: "["), count: 1 << 20)
        #expect(StrictJSON.validate(deep)?.reason == "nesting deeper than 64 levels")
        let deepObjects = String(repeating: #"{"a":"#, count: 100_000)
        #expect(StrictJSON.validate(Array(deepObjects.utf8))?.offset == 64 * 5)
    }

    @Test func manyKeysInOneObjectAreCheckedInLinearTime() {
        let keys = (0..<100_000).map { #""k\#($0)":\#($0)"# }.joined(separator: ",")
        let clock = ContinuousClock()
        let elapsed = clock.measure { #expect(StrictJSON.validate(Array("{\(keys)}".utf8)) == nil) }
        #expect(elapsed < .seconds(10), "a quadratic check would take minutes")
        #expect(StrictJSON.validate(Array("{\(keys),\"k99999\":1}".utf8))?.reason == "duplicate key \"k99999\"")
    }
}
