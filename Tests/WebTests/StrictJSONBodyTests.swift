import Foundation
import HTTPCore
import HTTPRouting
import Testing

@testable import Web

/// API.md, "Limits that protect everyone": JSON bodies are strict RFC 8259. Sent to
/// `POST /api/v1/redeem` (the JSONDecoder-free fast path and its JSONDecoder fallback).
@Suite("Strict JSON request bodies")
struct StrictJSONBodyTests {
    static let refusedBodies: [(String, [UInt8])] = [
        ("trailing comma in the object", Array(#"{"code":"ABCD-EFGH-JKMN-PQRS","app_user_id":"u1",}"#.utf8)),
        ("trailing comma in a nested array", Array(#"{"code":"ABCD-EFGH-JKMN-PQRS","app_user_id":"u1","extra":[1,]}"#.utf8)),
        ("duplicate top-level key", Array(#"{"code":"ABCD-EFGH-JKMN-PQRS","app_user_id":"u1","code":"x"}"#.utf8)),
        ("duplicate key spelled with an escape", Array(#"{"code":"ABCD-EFGH-JKMN-PQRS","app_user_id":"u1","\u0063ode":"x"}"#.utf8)),
        ("duplicate nested key", Array(#"{"code":"ABCD-EFGH-JKMN-PQRS","app_user_id":"u1","extra":[{"a":1,"a":2}]}"#.utf8)),
        ("lone high surrogate", Array(#"{"code":"ABCD-EFGH-JKMN-PQRS","app_user_id":"u\ud800"}"#.utf8)),
        ("high surrogate before a non-surrogate", Array(#"{"code":"ABCD-EFGH-JKMN-PQRS","app_user_id":"u\ud800\u0041"}"#.utf8)),
        ("lone low surrogate", Array(#"{"code":"ABCD-EFGH-JKMN-PQRS","app_user_id":"\udc00u"}"#.utf8)),
        ("raw NUL in a string", Array(#"{"code":"ABCD-EFGH-JKMN-PQRS","app_user_id":"u"#.utf8) + [0x00] + Array(#""}"#.utf8)),
        ("raw U+001F in a key", Array(#"{"code":"ABCD-EFGH-JKMN-PQRS","app_user_id":"u","x"#.utf8) + [0x1F] + Array(#"":1}"#.utf8)),
        ("raw newline in a string", Array("{\"code\":\"ABCD-EFGH-JKMN-PQRS\",\"app_user_id\":\"u\n\"}".utf8)),
        (
            "nesting deeper than 64",
            Array(
                (#"{"code":"ABCD-EFGH-JKMN-PQRS","app_user_id":"u","extra":"# + String(repeating: "[", count: 100)
                    + String(repeating: "]", count: 100) + "}").utf8)
        )
    ]

    @Test("Refused with 400 bad_request in API.md's error shape", arguments: refusedBodies)
    func refused(name: String, body: [UInt8]) async throws {
        let harness = try CheckoutHarness()
        let response = await harness.app.send(
            .post, "/api/v1/redeem", headers: ["X-Api-Key": CheckoutHarness.apiKey, "Content-Type": "application/json"], bytes: body
        )
        #expect(response.status == .badRequest, "\(name)")
        let error = try #require(response.jsonObject?["error"] as? [String: Any], "\(name): \(response.text)")
        #expect(error["code"] as? String == "bad_request", "\(name)")
        #expect(error["retryable"] as? Bool == false, "\(name)")
        #expect((error["message"] as? String)?.hasPrefix("The body is not valid JSON") == true, "\(name): \(error["message"] ?? "")")
    }

    @Test("Escapes, surrogate pairs, nesting up to the limit and unknown members are still accepted")
    func stillAccepted() async throws {
        let harness = try CheckoutHarness()
        let nested = String(repeating: "[", count: 60) + String(repeating: "]", count: 60)
        for body in [
            #"{"code":"ABCD-EFGH-JKMN-PQRS","app_user_id":"u1"}"#,
            // Escapes of characters an id may hold (a control character is refused on its own, finding 6).
            #"{"code":"ABCD-EFGH-JKMN-PQRS","app_user_id":"\ud83d\ude00 \u00e9\/\\\"","device_id":"d\u00201"}"#,
            #" {"code" : "ABCD-EFGH-JKMN-PQRS" , "app_user_id" : "u1", "extra": {"a": [1, -2.5e3, true, false, null, {"a": 1}]}} "#,
            #"{"code":"ABCD-EFGH-JKMN-PQRS","app_user_id":"u1","extra":"# + nested + "}"
        ] {
            let response = await harness.app.send(
                .post, "/api/v1/redeem", headers: ["X-Api-Key": CheckoutHarness.apiKey, "Content-Type": "application/json"], body: body
            )
            #expect(response.status == .ok, "\(body): \(response.text)")
            #expect(response.jsonObject?["status"] as? String == "invalid_code", "\(body)")
        }
    }
    /// What reaches each route's reader, whichever it is (the redeem fast path, JSONDecoder,
    /// a webhook's own parsing), and paths no route takes: a non-strict body sent as JSON is
    /// refused before the route, its key checks or its method check run.
    static let routes: [(method: HTTPMethod, path: String, contentType: String)] = [
        (.post, "/api/v1/redeem", "application/json; charset=utf-8"),
        (.post, "/api/v1/iap/apple", "application/json"),
        (.post, "/receipts", "application/json"),
        (.post, "/webhooks/stripe", "application/json"),
        (.post, "/webhooks/google", "Application/JSON"),
        (.post, "/admin/v1/codes/resend", "application/json"),
        (.patch, "/api/v1/redeem", "application/merge-patch+json"),
        (.post, "/api/v1/no/such/route", "application/vnd.example+json")
    ]

    @Test("Every route, and paths no route takes, refuse a non-strict JSON body first", arguments: routes)
    func refusedEverywhere(method: HTTPMethod, path: String, contentType: String) async throws {
        let harness = try CheckoutHarness()
        let response = await harness.app.send(method, path, headers: ["Content-Type": contentType], body: #"{"a":1,"a":2}"#)
        #expect(response.status == .badRequest, "\(method) \(path): \(response.text)")
        let error = try #require(response.jsonObject?["error"] as? [String: Any], "\(path): \(response.text)")
        #expect(error["message"] as? String == "The body is not valid JSON: duplicate key \"a\" at byte 7.", "\(path)")
    }

    @Test("A body not sent as JSON is left to its route: a form passes, other types get the route's 415")
    func otherMediaTypes() async throws {
        let harness = try CheckoutHarness()
        let text = await harness.app.send(
            .post, "/api/v1/redeem", headers: ["X-Api-Key": CheckoutHarness.apiKey, "Content-Type": "text/plain"], body: #"{"a":1,"a":2}"#)
        #expect(text.status == .unsupportedMediaType, "\(text.text)")
        let form = await harness.app.send(
            .post, "/account/sign-in", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: "email=a%40example.com&email=b")
        #expect(!form.text.contains("not valid JSON"), "\(form.text)")
        #expect(form.status != .badRequest, "\(form.status) \(form.text)")
    }
}
