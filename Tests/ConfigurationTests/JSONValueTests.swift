import Foundation
import Testing
@testable import Configuration

@Suite("JSON values")
struct JSONValueTests {
    @Test("JSONSerialization's NSNumbers become bools, integers or doubles")
    func numbersAndBools() throws {
        let value = try JSONValue.parse(Data(#"{"t": true, "f": false, "one": 1, "zero": 0, "half": 0.5, "big": 1e3}"#.utf8)).get()
        #expect(value == .object(["t": .bool(true), "f": .bool(false), "one": .int(1), "zero": .int(0), "half": .double(0.5), "big": .double(1000)]))
        #expect(JSONValue.double(1000).integerValue == 1000)
        #expect(JSONValue.double(0.5).integerValue == nil)
        #expect(JSONValue.bool(true).integerValue == nil)
    }

    @Test("parse errors carry line and column")
    func parseError() {
        let result = JSONValue.parse(Data("{\n\n  \"a\": tru\n}".utf8))
        guard case .failure(let failure) = result else {
            Issue.record("expected a failure")
            return
        }
        #expect(failure.message.contains("line 3"))
    }

    @Test("pretty printing sorts keys and escapes strings")
    func pretty() throws {
        let value = JSONValue.object(["b": .array([.string("x/\"y\"\n")]), "a": .null, "c": .object([:])])
        let text = value.prettyPrinted()
        #expect(text == "{\n  \"a\": null,\n  \"b\": [\n    \"x/\\\"y\\\"\\n\"\n  ],\n  \"c\": {}\n}")
        #expect(try JSONValue.parse(Data(text.utf8)).get() == value)
    }
}
