import HTTPCore
import HTTPRouting
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
            _ = try request(body, contentType: contentType).decodeJSON(Redeem.self)
            return nil
        } catch let error as APIError {
            return (error.status.code, error.code, error.message)
        } catch {
            return (0, "unexpected", "\(error)")
        }
    }

    @Test("A valid body decodes with snake_case keys")
    func decodes() throws {
        let value = try request(#"{"code":"ABCD","app_user_id":"u1","device_id":null}"#).decodeJSON(Redeem.self)
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

    /// Decodes through the JSONDecoder-only path, whatever `T` also offers.
    func decodedByFoundation<T: Decodable>(_ type: T.Type, _ request: HTTPRequest) throws -> T {
        try request.decodeJSON(type)
    }

    func outcome(_ body: [UInt8], fast: Bool) -> String {
        let request = HTTPRequest(method: .post, target: "/api/v1/redeem", headers: ["Content-Type": "application/json"], body: body)
        do {
            let value = fast
                ? try request.decodeJSON(RedemptionAPIRoutes.RedeemBody.self)
                : try decodedByFoundation(RedemptionAPIRoutes.RedeemBody.self, request)
            return "ok \(value.code)|\(value.appUserId)|\(value.deviceId ?? "<nil>")"
        } catch let error as APIError {
            return "\(error.status.code) \(error.message)"
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test("The redeem body's fast path takes plain bodies and answers exactly as JSONDecoder does for everything")
    func fastPathAgrees() throws {
        let plain = Array(#"{"code":"K7P2-9QXM-4D8R-2WTF","app_user_id":"u1","device_id":"d1"}"#.utf8)
        let object = try #require(FlatJSONObject(plain))
        #expect(RedemptionAPIRoutes.RedeemBody(flat: object)?.deviceId == "d1")
        let bodies: [String] = [
            #"{"code":"c","app_user_id":"u"}"#, #" { "code" : "c" , "app_user_id" : "u" , "device_id" : null } "#,
            "{\n\t\"code\":\"c\",\r\n\"app_user_id\":\"u\"}", #"{"code":"c\u0041","app_user_id":"u\"q"}"#,
            #"{"code":"café ☕️","app_user_id":"ü"}"#, #"{"code":"c","code":"d","app_user_id":"u"}"#,
            #"{"code":"c","app_user_id":"u","extra":1}"#, #"{"code":"c","app_user_id":"u","extra":{"a":[1]}}"#,
            #"{"code":"c","appUserId":"u"}"#, #"{"code":null,"app_user_id":"u"}"#, #"{"code":"c"}"#, #"{"code":1,"app_user_id":"u"}"#,
            #"{"code":"c","app_user_id":"u","device_id":7}"#, #"{"code":"c","app_user_id":"u"} x"#, #"{"code":"c","app_user_id":"u",}"#,
            #"{"code":"c" "app_user_id":"u"}"#, "{\"code\":\"a\u{1}b\",\"app_user_id\":\"u\"}", #"{}"#, #"[]"#, "{", #""x""#, "nul", "{\"code\":\"c\",\"app_user_id\":\"u\"",
        ]
        var cases = bodies.map { Array($0.utf8) }
        cases.append(Array(#"{"code":""#.utf8) + [0xFF, 0xFE] + Array(#"","app_user_id":"u"}"#.utf8))
        for body in cases {
            #expect(outcome(body, fast: true) == outcome(body, fast: false), "\(String(decoding: body, as: UTF8.self))")
        }
    }
}
