import HTTPCore
import Testing

@testable import Web

/// Found by the `json` fuzz target: JSONDecoder's `convertFromSnakeCase` folds case and
/// underscores (`devicE_id`, `DEVICE_ID`, `device__id` and `deviceId` all read as `device_id`),
/// while the redeem fast path read only `device_id` and answered with no device. The fast path
/// now leaves any key that is not plain lower-case snake_case to JSONDecoder, so both paths
/// read the same body the same way.
@Suite("The redeem fast path and JSONDecoder agree on key spellings")
struct FlatJSONKeySpellingTests {
    /// Forces the JSONDecoder-only overload.
    func decodedByFoundation<T: Decodable>(_ type: T.Type, _ request: HTTPRequest) throws -> T {
        try request.decodeJSON(type)
    }

    @Test(arguments: ["devicE_id", "DEVICE_ID", "Device_id", "device__id", "deviceId", "device_Id", "_device_id", "device_id_", "device_1d"])
    func sameDevice(key: String) throws {
        let body = Array(#"{"code":"K7P2-9QXM-4D8R-2WTF","app_user_id":"u1","\#(key)":"phone"}"#.utf8)
        let request = HTTPRequest(method: .post, target: "/api/v1/redeem", headers: ["Content-Type": "application/json"], body: body)
        let fast = try request.decodeJSON(RedemptionAPIRoutes.RedeemBody.self)
        let foundation = try decodedByFoundation(RedemptionAPIRoutes.RedeemBody.self, request)
        #expect(fast.deviceId == foundation.deviceId, "\(key): fast \(fast.deviceId ?? "nil"), JSONDecoder \(foundation.deviceId ?? "nil")")
    }

    @Test func plainSnakeCaseKeysStayOnTheFastPath() {
        #expect(FlatJSONObject(Array(#"{"code":"c","app_user_id":"u","device_id":"d","x2_y":"z"}"#.utf8)) != nil)
        for key in ["devicE_id", "device__id", "deviceId", "_a", "a_", "a_1", "1a", ""] {
            #expect(FlatJSONObject(Array(#"{"\#(key)":"v"}"#.utf8)) == nil, "\(key)")
        }
    }
}
