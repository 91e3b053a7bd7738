import Testing
import JSON

/// `JSONValue.parse`: the strict validator building values, errors with line and column.
@Suite("JSONValue reading")
struct JSONValueReadingTests {
    private func parse(_ text: String) throws(StrictJSON.Violation) -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    @Test("objects keep the text's member order")
    func orderedMembers() throws {
        let value = try parse(#"{"zeta": 1, "alpha": {"y": null, "x": []}, "mid": "m"}"#)
        guard case .object(let members) = value else {
            Issue.record("not an object: \(value)")
            return
        }
        #expect(members.map(\.key) == ["zeta", "alpha", "mid"])
        #expect(value["alpha"] == ["y": .null, "x": []])
        #expect(value["alpha"] != ["x": [], "y": .null], "order is part of an object's identity")
        #expect(value["missing"] == nil)
    }

    @Test("scalars: integers that fit 64 bits, other numbers as doubles, strings unescaped")
    func scalars() throws {
        let value = try parse(#"[0, -12, 9223372036854775807, 9223372036854775808, 1.5, 1e3, -0, true, false, null, "a\u00e9\uD83D\uDE00\n\/"]"#)
        #expect(
            value == [
                .integer(0), .integer(-12), .integer(Int64.max), .number(9_223_372_036_854_775_808), .number(1.5),
                .number(1000), .integer(0), .bool(true), .bool(false), .null, .string("aé😀\n/")
            ])
        #expect(try parse(#" "top" "#) == "top")
        #expect(try parse("7") == 7)
    }

    @Test("escaped keys are unescaped, and compared unescaped for duplicates")
    func escapedKeys() throws {
        #expect(try parse(#"{"\u0061b":1,"c\"":2}"#) == ["ab": 1, "c\"": 2])
        #expect(throws: StrictJSON.Violation.self) { try parse(#"{"ab":1,"\u0061b":2}"#) }
    }

    @Test("a duplicate key is refused, naming its line and column")
    func duplicates() {
        do {
            _ = try parse("{\n  \"port\": 1,\n  \"port\": 2\n}")
            Issue.record("accepted a duplicate key")
        } catch {
            #expect(error.reason == #"duplicate key "port""#)
            #expect(error.line == 3 && error.column == 3)
            #expect(error.offset == 17)
            #expect(error.lineAndColumnDescription == #"duplicate key "port" at line 3, column 3"#)
        }
    }

    @Test(
        "errors count lines from 1 and columns in characters, not bytes",
        arguments: [
            ("{\n\n  \"a\": tru\n}", 3, 8, "unexpected 't' where a value was expected"),
            ("{\"é€😀\": [1,]}", 1, 12, "trailing comma in an array"),
            ("[\r\n1,\n2,\n  3 4]", 4, 5, "unexpected '4'; expected ',' or ']'"),
            ("", 1, 1, "the document ends where a value was expected")
        ])
    func lineAndColumn(_ text: String, _ line: Int, _ column: Int, _ reason: String) {
        #expect(throws: StrictJSON.Violation.self) { try parse(text) }
        do {
            _ = try parse(text)
        } catch {
            #expect(error.reason == reason)
            #expect(error.line == line, "\(text)")
            #expect(error.column == column, "\(text)")
        }
    }

    @Test("what the validator refuses, the reader refuses with the same reason")
    func sameRulesAsValidator() {
        for text in [#"{"a":1,}"#, #"["\ud800"]"#, "[01]", "{} {}", "\u{FEFF}{}"] {
            let validated = StrictJSON.validate(Array(text.utf8))
            #expect(validated != nil, "\(text)")
            do {
                _ = try parse(text)
                Issue.record("parsed \(text)")
            } catch {
                #expect(error == validated)
            }
        }
    }

    @Test("nesting is bounded as in the validator")
    func depth() throws {
        let deep = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try parse(deep) }
        #expect(throws: StrictJSON.Violation.self) { try parse("[" + deep + "]") }
        #expect(throws: StrictJSON.Violation.self) { try JSONValue.parse(Array("[[1]]".utf8), maxDepth: 1) }
    }

    @Test("accessors keep JSON's kinds apart: true is no 1, 1 no true, a string of digits no number")
    func accessors() throws {
        let value = try parse(
            #"{"t":true,"one":1,"zero":0,"two":2.0,"half":0.5,"digits":"1700000000000","big":1e19,"max":9223372036854775807,"o":{},"a":[1]}"#)
        #expect(value["t"]?.boolValue == true && value["t"]?.int64Value == nil)
        #expect(value["one"]?.int64Value == 1 && value["one"]?.boolValue == nil)
        #expect(value["zero"]?.int64Value == 0 && value["zero"]?.boolValue == nil)
        #expect(value["two"]?.int64Value == 2)
        #expect(value["half"]?.int64Value == nil)
        #expect(value["digits"]?.int64Value == nil && value["digits"]?.stringValue == "1700000000000")
        #expect(value["big"]?.int64Value == nil)
        #expect(value["max"]?.int64Value == Int64.max)
        #expect(value["o"]?.isObject == true && value["o"]?.objectValue == [:] && value["a"]?.objectValue == nil)
        #expect(value["a"]?.arrayElements == [1] && value["o"]?.arrayElements == nil)
    }
}
