import Foundation
import JSON
import Testing

/// `JSONValueDecoder` decodes what the strict reader read exactly as Foundation's JSONDecoder
/// (`.convertFromSnakeCase`) decodes the same text: the same values, and the same errors at
/// the same coding paths, which the 400 answers name.
@Suite("JSONValueDecoder reads as JSONDecoder does")
struct JSONValueDecoderTests {
    struct Details: Decodable, Equatable {
        let email: String?
    }

    struct Body: Decodable, Equatable {
        let code: String
        let appUserId: String
        let deviceId: String?
        let attempts: Int?
        let details: Details?
        let list: [Int]?
        let ratio: Double?
        let flag: Bool?
        let map: [String: String]?
    }

    /// The decoded value, or the error's kind, type and coding path.
    func outcome(_ decode: () throws -> Body) -> String {
        do {
            return "ok \(try decode())"
        } catch let error as DecodingError {
            func path(_ context: DecodingError.Context) -> String { context.codingPath.map(\.stringValue).joined(separator: ".") }
            switch error {
            case .keyNotFound(let key, let context): return "keyNotFound \(key.stringValue) at \(path(context))"
            case .typeMismatch(let type, let context): return "typeMismatch \(type) at \(path(context))"
            case .valueNotFound(let type, let context): return "valueNotFound \(type) at \(path(context))"
            case .dataCorrupted(let context): return "dataCorrupted at \(path(context))"
            @unknown default: return "unknown"
            }
        } catch {
            return "other \(error)"
        }
    }

    func compare(_ text: String) throws {
        let foundation = outcome {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return try decoder.decode(Body.self, from: Data(text.utf8))
        }
        let value = try JSONValue.parse(Array(text.utf8))
        let ours = outcome { try JSONValueDecoder(convertsFromSnakeCase: true).decode(Body.self, from: value) }
        #expect(ours == foundation, "\(text)")
    }

    @Test(arguments: [
        #"{"code":"c","app_user_id":"u"}"#, #"{"code":"c","app_user_id":"u","device_id":null}"#,
        #"{"code":"c","app_user_id":"u","extra":{"a":[1]}}"#, #"{"code":"c","appUserId":"u"}"#, #"{"code":null,"app_user_id":"u"}"#,
        #"{"code":"c"}"#, #"{"code":1,"app_user_id":"u"}"#, #"{"code":"c","app_user_id":"u","device_id":7}"#, "{}", "[]", #""x""#, "null", "1",
        #"{"code":"c","app_user_id":"u","attempts":"x"}"#, #"{"code":"c","app_user_id":"u","attempts":2.0}"#,
        #"{"code":"c","app_user_id":"u","attempts":2.5}"#, #"{"code":"c","app_user_id":"u","attempts":1e2}"#,
        #"{"code":"c","app_user_id":"u","attempts":99999999999999999999}"#, #"{"code":"c","app_user_id":"u","attempts":null}"#,
        #"{"code":"c","app_user_id":"u","details":{"email":3}}"#, #"{"code":"c","app_user_id":"u","details":[]}"#,
        #"{"code":"c","app_user_id":"u","list":[1,"a"]}"#, #"{"code":"c","app_user_id":"u","list":[1,null]}"#,
        #"{"code":"c","app_user_id":"u","ratio":3}"#, #"{"code":"c","app_user_id":"u","flag":1}"#,
        #"{"code":"c","app_user_id":"u","map":{"a_b":"x"}}"#, #"{"code":"c","app_user_id":"u","map":{"a":1}}"#,
        #"{"code":"c\u0041","app_user_id":"u\"q"}"#, #"{"code":"café ☕️","app_user_id":"ü"}"#
    ])
    func sameOutcome(text: String) throws {
        try compare(text)
    }

    /// `convertFromSnakeCase` folds case and underscores (`devicE_id`, `device__id` and `deviceId`
    /// read as `device_id`); two spellings of one key read as the first.
    @Test(arguments: [
        "device_id", "devicE_id", "DEVICE_ID", "Device_id", "device__id", "deviceId", "device_Id", "_device_id", "device_id_", "device_1d",
        // The ASCII fast path and the Unicode one: runs of underscores at each end and between, one letter words.
        "__device__id__", "dEVICE_iD", "d_evice_id", "device_ID_", "_", "__", "device_", "ü_device_id", "device_ïd", "DEVICE__ID__"
    ])
    func sameKeySpelling(key: String) throws {
        try compare(#"{"code":"c","app_user_id":"u","\#(key)":"phone"}"#)
        if key != "deviceId" { try compare(#"{"code":"c","app_user_id":"u","\#(key)":"phone","deviceId":"tablet"}"#) }
    }
}
