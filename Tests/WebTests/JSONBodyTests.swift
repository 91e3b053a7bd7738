import HTTPCore
import HTTPRouting
import JSON
import Logging
import Testing

@testable import Web

@Suite("JSON request bodies")
struct JSONBodyTests {
    struct Redeem: Decodable, Equatable {
        let code: String
        let appUserId: String
        let deviceId: String?
        let attempts: Int?
    }

    func request(_ body: String, contentType: String? = "application/json") -> HTTPRequest {
        var headers = HTTPHeaders()
        if let contentType { headers.set("Content-Type", contentType) }
        return HTTPRequest(method: .post, target: "/api/v1/redeem", headers: headers, body: Array(body.utf8))
    }

    func message(_ body: String, contentType: String? = "application/json") -> (status: Int, code: String, message: String)? {
        do {
            _ = try request(body, contentType: contentType).decodeJSON(Redeem.self, RequestContext(requestId: "r", logger: .disabled))
            return nil
        } catch let error as APIError {
            return (error.status.code, error.code, error.message)
        } catch {
            return (0, "unexpected", "\(error)")
        }
    }

    @Test("A valid body decodes with snake_case keys")
    func decodes() throws {
        let value = try request(#"{"code":"ABCD","app_user_id":"u1","device_id":null}"#).decodeJSON(
            Redeem.self, RequestContext(requestId: "r", logger: .disabled))
        #expect(value == Redeem(code: "ABCD", appUserId: "u1", deviceId: nil, attempts: nil))
    }

    @Test("A missing field is named")
    func missing() {
        let result = message(#"{"code":"ABCD"}"#)
        #expect(result?.status == 400)
        #expect(result?.code == "bad_request")
        #expect(result?.message == "Field 'app_user_id' is missing.")
    }

    @Test("A wrong type is named with the expected type")
    func wrongType() {
        #expect(message(#"{"code":12,"app_user_id":"u"}"#)?.message == "Field 'code' must be a string.")
        #expect(message(#"{"code":"c","app_user_id":"u","attempts":"x"}"#)?.message == "Field 'attempts' must be an integer.")
    }

    @Test("Malformed JSON, an empty body and a non-object are 400", arguments: ["{", "", "[1,2]", "nul", "\u{0}"])
    func malformed(body: String) {
        let result = message(body)
        #expect(result?.status == 400)
        #expect(result?.code == "bad_request")
    }

    @Test("Another content type is 415")
    func wrongContentType() {
        let result = message(#"{"code":"a","app_user_id":"b"}"#, contentType: "application/x-www-form-urlencoded")
        #expect(result?.status == 415)
        #expect(result?.code == "unsupported_media_type")
    }

    @Test("The route decodes the value the strict check read: the bytes are not read again")
    func decodesWhatTheStrictCheckRead() throws {
        let body = request(#"{"code":"ABCD","app_user_id":"u1"}"#)
        var context = RequestContext(requestId: "r", logger: .disabled)
        // A value other than the bytes' shows which one the route decoded.
        context.jsonBody = ["code": "FROM-CHECK", "app_user_id": "u2", "device_id": "d"]
        let value = try body.decodeJSON(Redeem.self, context)
        #expect(value == Redeem(code: "FROM-CHECK", appUserId: "u2", deviceId: "d", attempts: nil))
    }

    @Test("The strict check hands its value on to the route")
    func checkHandsTheValueOn() throws {
        var context = RequestContext(requestId: "r", logger: .disabled)
        try StrictJSONCheck(reading: .parsed).check(request(#"{"code":"ABCD","app_user_id":"u1"}"#), context: &context)
        #expect(context.jsonBody.map { String(decoding: $0.serialized(), as: UTF8.self) } == #"{"code":"ABCD","app_user_id":"u1"}"#)
        var unread = RequestContext(requestId: "r", logger: .disabled)
        try StrictJSONCheck(reading: .validatedOnly).check(request(#"{"code":"ABCD"}"#), context: &unread)
        #expect(unread.jsonBody == nil)
        #expect(throws: APIError.self) { try StrictJSONCheck(reading: .validatedOnly).check(request(#"{"code":"A","code":"B"}"#), context: &unread) }
    }
}

@Suite("The redeem body's fast reader")
struct RedeemBodyReaderTests {
    typealias Body = RedemptionAPIRoutes.RedeemBody

    func decodeBoth(_ text: String) throws -> (fast: Body?, decoded: Body?) {
        let value = try JSONValue.parse(Array(text.utf8))
        let decoded = try? JSONValueDecoder(convertsFromSnakeCase: true).decode(Body.self, from: value)
        return (Body.read(value), decoded)
    }

    @Test(
        "What the fast reader accepts, the decoder decodes to the same body",
        arguments: [
            #"{"code":"ABCD-1234","app_user_id":"u1"}"#,
            #"{"app_user_id":"u1","code":"abcd1234","device_id":"d1","app_user_secret":"s"}"#,
            #"{"code":"ABCD","app_user_id":"u1","device_id":null,"app_user_secret":null}"#,
            #"{"code":"é\"\\n","app_user_id":"\u0041"}"#
        ])
    func agrees(text: String) throws {
        let (fast, decoded) = try decodeBoth(text)
        let read = try #require(fast, "the plain body should take the fast path")
        let expected = try #require(decoded)
        #expect(read.code == expected.code && read.appUserId == expected.appUserId)
        #expect(read.appUserSecret == expected.appUserSecret && read.deviceId == expected.deviceId)
    }

    @Test(
        "Every other shape is left to the decoder, which answers it",
        arguments: [
            #"{"code":"ABCD"}"#,
            #"{"code":12,"app_user_id":"u"}"#,
            #"{"code":null,"app_user_id":"u"}"#,
            #"{"code":"c","app_user_id":"u","device_id":7}"#,
            #"{"code":"c","app_user_id":"u","app_user_secret":false}"#,
            #"{"code":"c","appUserId":"u"}"#,
            #"{"code":"c","app_user_id":"u","extra":1}"#,
            #"["code"]"#,
            #""code""#
        ])
    func declines(text: String) throws {
        #expect(try decodeBoth(text).fast == nil)
    }

    @Test("The route's 400s are the decoder's")
    func routeErrors() {
        func message(_ body: String) -> String? {
            var headers = HTTPHeaders()
            headers.set("Content-Type", "application/json")
            let request = HTTPRequest(method: .post, target: "/api/v1/redeem", headers: headers, body: Array(body.utf8))
            do {
                _ = try request.decodeJSON(Body.self, RequestContext(requestId: "r", logger: .disabled), reading: Body.read)
                return nil
            } catch {
                return (error as? APIError)?.message
            }
        }
        #expect(message(#"{"code":"ABCD"}"#) == "Field 'app_user_id' is missing.")
        #expect(message(#"{"code":12,"app_user_id":"u"}"#) == "Field 'code' must be a string.")
        #expect(message(#"{"code":"c","app_user_id":"u","device_id":7}"#) == "Field 'device_id' must be a string.")
        #expect(message(#"{"code":"c","app_user_id":"u","extra":1}"#) == nil)
    }
}
