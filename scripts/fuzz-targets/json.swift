// libFuzzer target: the JSON body readers. StrictJSON (StrictJSONMiddleware, in front of every
// route), the redeem fast path (FlatJSONObject) and decodeJSON's JSONDecoder fallback, cross-checked:
// whatever the fast path reads is strict JSON; the fast path and JSONDecoder decode the same
// values and refuse with the same words; what StrictJSON accepts Foundation can parse; and
// JSONValue.parse (the same validator building values) reads exactly what StrictJSON accepts.
// Built by scripts/fuzz.
import Foundation
@testable import HTTPCore
@testable import HTTPRouting
import JSON
@testable import Web

/// The redeem route's body: the hot path's FlatJSONDecodable type.
private typealias Body = RedemptionAPIRoutes.RedeemBody

private func outcome(_ decode: () throws -> Body) -> String {
    do {
        let body = try decode()
        return "ok \(body.code)|\(body.appUserId)|\(body.deviceId ?? "<nil>")"
    } catch let error as APIError {
        return "\(error.status.code) \(error.message)"
    } catch {
        return "unexpected \(error)"
    }
}

/// Forces the JSONDecoder-only overload.
private func decodeWithFoundation<T: Decodable>(_ type: T.Type, _ request: HTTPRequest) throws -> T {
    try request.decodeJSON(type)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let violation = StrictJSON.validate(bytes)
    if FlatJSONObject(bytes) != nil, let violation {
        fatalError("FlatJSONObject read a body StrictJSON refuses: \(violation)")
    }
    do {
        _ = try JSONValue.parse(bytes)
        if let violation { fatalError("JSONValue.parse read a text StrictJSON refuses: \(violation)") }
    } catch {
        if error != violation { fatalError("JSONValue.parse refused \(error), StrictJSON.validate said \(String(describing: violation))") }
    }
    let request = HTTPRequest(method: .post, target: "/", headers: ["Content-Type": "application/json"], body: bytes)
    let fast = outcome { try request.decodeJSON(Body.self) }
    let slow = outcome { try decodeWithFoundation(Body.self, request) }
    if fast != slow { fatalError("fast path: \(fast)\nJSONDecoder: \(slow)") }
    if violation == nil, !bytes.isEmpty {
        do {
            _ = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        } catch {
            // Foundation refusing what RFC 8259 allows is Foundation's limit, unless it is about syntax.
            let text = "\(error)"
            if !text.contains("Number") && !text.contains("number") {
                fatalError("StrictJSON accepted what Foundation cannot parse: \(text)")
            }
        }
    }
    return 0
}
