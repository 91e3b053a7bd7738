import Foundation
import Testing

@testable import Web

/// The hand-built JSON of every API answer (`JSONWriter`): what a client parses must be exactly
/// the members written, in order, escaped where they must be, however large the document grows
/// past the room it started with.
@Suite("JSONWriter: the API's JSON, escaped and whole")
struct JSONWriterTests {
    static func text(capacity: Int = 256, _ body: (inout JSONWriter) -> Void) -> String {
        var json = JSONWriter(capacity: capacity)
        json.object(body)
        return String(decoding: json.bytes, as: UTF8.self)
    }

    @Test("members, nested objects and arrays are written in order with their commas")
    func structure() throws {
        let text = Self.text { json in
            json.string("status", "success")
            json.int("count", -42)
            json.bool("active", true)
            json.optionalBool("will_renew", nil)
            json.string("email", nil)
            json.object("account") { account in
                account.string("id", "acct_1")
                account.bool("email_verified", false)
            }
            json.array("entitlements", ["pro", "plus"]) { json, id in
                json.object { item in item.string("id", id) }
            }
            json.strings("tags", ["a", "b"])
            json.int("last", nil)
        }
        #expect(
            text == #"{"status":"success","count":-42,"active":true,"will_renew":null,"email":null,"#
                + #""account":{"id":"acct_1","email_verified":false},"entitlements":[{"id":"pro"},{"id":"plus"}],"#
                + #""tags":["a","b"],"last":null}"#)
    }

    @Test("quotes, backslashes and control characters are escaped; other text is copied as it is")
    func escapes() throws {
        let value = "a\"b\\c\nd\re\tf\u{01}g\u{7F}h é 🎟"
        let text = Self.text { $0.string("value", value) }
        #expect(text == #"{"value":"a\"b\\c\nd\re\tf\u0001g\u007fh é 🎟"}"#)
        let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String]
        #expect(parsed?["value"] == value)
    }

    @Test("a document far larger than the room it started with is written whole", arguments: [1, 16, 300])
    func growth(capacity: Int) throws {
        let long = String(repeating: "x", count: 5_000)
        let text = Self.text(capacity: capacity) { json in
            for index in 0..<200 {
                json.object("member") { item in
                    item.int("index", index)
                    item.string("escaped", "line\n\(index)")
                }
            }
            json.string("long", long)
        }
        // Duplicate keys are valid JSON text; decode the array form to check every member survived.
        #expect(text.hasPrefix(#"{"member":{"index":0,"escaped":"line\n0"},"#))
        #expect(text.hasSuffix(#""member":{"index":199,"escaped":"line\n199"},"long":""# + long + #""}"#))
        #expect(text.components(separatedBy: #""member":"#).count == 201)
        #expect(try JSONSerialization.jsonObject(with: Data(text.utf8)) is [String: Any])
    }

    @Test("stored JSON text is written with sorted keys when it is an object, else as null")
    func storedObjects() throws {
        let text = Self.text { json in
            json.storedObject("kept", #"{"b":1,"a":"x"}"#)
            json.storedObject("array", "[1,2]")
            json.storedObject("broken", #"{"a":"#)
            json.storedObject("missing", nil)
        }
        #expect(text == #"{"kept":{"a":"x","b":1},"array":null,"broken":null,"missing":null}"#)
    }
}
