import Foundation
import JSON
import Testing
@testable import Configuration

@Suite("JSON values in the configuration")
struct JSONValueTests {
    @Test("objects read as name → value maps; integral numbers count as integers")
    func membersAndIntegers() throws {
        let value = try JSONValue.parse(Data(#"{"t": true, "one": 1, "half": 0.5, "big": 1e3}"#.utf8)).get()
        #expect(value.objectMembers == ["t": .bool(true), "one": .integer(1), "half": .number(0.5), "big": .number(1000)])
        #expect(JSONValue.number(1000).integerValue == 1000)
        #expect(JSONValue.number(0.5).integerValue == nil)
        #expect(JSONValue.bool(true).integerValue == nil)
        #expect(JSONValue.string("x").objectMembers == nil)
    }

    @Test("parse errors carry line and column")
    func parseError() {
        let result = JSONValue.parse(Data("{\n\n  \"a\": tru\n}".utf8))
        guard case .failure(let failure) = result else {
            Issue.record("expected a failure")
            return
        }
        #expect(failure.message == "unexpected 't' where a value was expected at line 3, column 8")
    }

    @Test("a key given twice is refused (Foundation kept the last one silently)")
    func duplicateKey() {
        let result = JSONValue.parse(Data("{\"listen\": {\"port\": 80,\n \"port\": 8080}}".utf8))
        guard case .failure(let failure) = result else {
            Issue.record("expected a failure")
            return
        }
        #expect(failure.message == #"duplicate key "port" at line 2, column 2"#)
    }

    @Test("pretty printing sorts keys and escapes strings")
    func pretty() throws {
        let value: JSONValue = ["b": .array([.string("x/\"y\"\n")]), "a": .null, "c": [:]]
        let text = value.prettyPrinted()
        #expect(text == "{\n  \"a\": null,\n  \"b\": [\n    \"x/\\\"y\\\"\\n\"\n  ],\n  \"c\": {}\n}")
        #expect(try JSONValue.parse(Data(text.utf8)).get().objectMembers == value.objectMembers)
        #expect(JSONValue.sortedObject(["b": 1, "a": 2]) == ["a": 2, "b": 1])
    }
}
