import Testing
import JSON

/// `JSONValue.serialized()`: the bytes signed JWTs and outbound bodies are made of.
@Suite("JSONValue writing")
struct JSONValueWritingTests {
    private func text(_ value: JSONValue) -> String { String(decoding: value.serialized(), as: UTF8.self) }

    @Test("members in the order given, no whitespace")
    func orderAndCompactness() {
        let header: JSONValue = ["typ": "JWT", "alg": "ES256", "kid": "2X9R4HXF34"]
        #expect(text(header) == #"{"typ":"JWT","alg":"ES256","kid":"2X9R4HXF34"}"#)
        let nested: JSONValue = ["b": [1, true, .null, ["z": [], "a": [:]]], "a": .integer(-9_223_372_036_854_775_808)]
        #expect(text(nested) == #"{"b":[1,true,null,{"z":[],"a":{}}],"a":-9223372036854775808}"#)
    }

    @Test("strings: quote, backslash and control characters escaped; '/' and non-ASCII as they are")
    func stringEscapes() {
        let value = JSONValue.string("a\"b\\c/d\n\r\t\u{0}\u{1F}\u{7F}é😀")
        let expected: [UInt8] = Array(#""a\"b\\c/d\n\r\t\u0000\u001f"#.utf8) + [0x7F] + Array("é😀\"".utf8)
        #expect(value.serialized() == expected)
        #expect(JSONValue.quoted("a\"b\n\u{1}") == #""a\"b\n\u0001""#)
    }

    @Test("numbers: integers exactly, others in their shortest form, non-finite as null")
    func numbers() {
        #expect(
            text([.integer(1_700_000_000), .number(0.5), .number(-1.25e-7), .number(1e300), .number(.infinity), .number(.nan)])
                == "[1700000000,0.5,-1.25e-07,1e+300,null,null]")
    }

    @Test("what is written reads back as the same value")
    func roundTrip() throws {
        let value: JSONValue = ["s": "x/\"y\"\n€", "n": .number(2.5), "i": 42, "l": [.bool(false), .null], "o": ["k": "v"]]
        #expect(try JSONValue.parse(value.serialized()) == value)
    }

    @Test("pretty: two spaces a level, \"key\": value, empty containers closed on their line, members in the order given")
    func pretty() throws {
        let value: JSONValue = ["b": [1, "x/y", .null, ["z": [], "a": [:]]], "a": ["t": true, "n": .number(0.5)]]
        let expected = """
            {
              "b": [
                1,
                "x/y",
                null,
                {
                  "z": [],
                  "a": {}
                }
              ],
              "a": {
                "t": true,
                "n": 0.5
              }
            }
            """
        #expect(String(decoding: value.prettySerialized(), as: UTF8.self) == expected)
        #expect(String(decoding: JSONValue.array([]).prettySerialized(), as: UTF8.self) == "[]")
        #expect(try JSONValue.parse(value.prettySerialized()) == value)
        #expect(String(decoding: value.keysSorted.prettySerialized(), as: UTF8.self).hasPrefix("{\n  \"a\": {\n    \"n\": 0.5,"))
    }
}
