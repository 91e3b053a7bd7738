import Foundation
import Testing

@testable import Integrations

@Suite("A Stripe list's elements found as byte ranges")
struct StripeListBytesTests {
    static func texts(_ json: String) -> ([String], Bool)? {
        StripeListBytes(Array(json.utf8)).map { list in (list.elements.map { String(decoding: $0, as: UTF8.self) }, list.hasMore) }
    }

    @Test("Nested objects, arrays and strings holding quotes, braces and brackets stay whole; keys in any order")
    func elements() throws {
        let json = #"""
            { "url": "/v1/events", "has_more" : true, "object":"list",
              "data": [ {"id":"evt_1","data":{"object":{"a":[1,{"b":"}]\"["}]}}}, {"id":"evt_2","n":-1.5e3,"x":null} ] }
            """#
        let (elements, hasMore) = try #require(Self.texts(json))
        #expect(hasMore)
        #expect(elements == [#"{"id":"evt_1","data":{"object":{"a":[1,{"b":"}]\"["}]}}}"#, #"{"id":"evt_2","n":-1.5e3,"x":null}"#])
        for element in elements { #expect((try? JSONSerialization.jsonObject(with: Data(element.utf8))) != nil) }
    }

    @Test(
        "An empty page, and answers that are not a list, are told apart",
        arguments: [
            (#"{"object":"list","data":[],"has_more":false,"url":"/v1/events"}"#, true),
            (#"{"object":"list","data":[],"url":"/v1/events"}"#, false),
            (#"{"object":"list","has_more":false}"#, false),
            (#"{"data":[{"id":"evt_1"}"#, false),
            (#"[]"#, false),
            (#"{"data":[{"id":"evt_1"}],"has_more":"yes"}"#, false),
            (#""#, false)
        ])
    func shapes(json: String, readable: Bool) {
        #expect((Self.texts(json) != nil) == readable)
    }
}
