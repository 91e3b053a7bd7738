// libFuzzer target: the JSON body readers. StrictJSON, JSONValue.parse (what StrictJSONMiddleware
// reads every JSON body with, in front of every route) and decodeJSON (routes decode that value
// with JSONValueDecoder), cross-checked: JSONValue.parse reads exactly what StrictJSON accepts;
// decodeJSON and Foundation's JSONDecoder decode the same values and refuse with the same words;
// what StrictJSON accepts Foundation can parse.
// Built by scripts/fuzz.
import Foundation
@testable import HTTPCore
@testable import HTTPRouting
import JSON
import Logging
@testable import Web

/// The redeem route's body.
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

/// Foundation's JSONDecoder with the route's key strategy, its errors worded as decodeJSON words them.
private func decodeWithFoundation<T: Decodable>(_ type: T.Type, _ bytes: [UInt8]) throws -> T {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    do {
        return try decoder.decode(T.self, from: Data(bytes))
    } catch let error as DecodingError {
        throw APIError.badRequest(HTTPRequest.describe(error))
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let violation = StrictJSON.validate(bytes)
    var parsed: JSONValue?
    do {
        parsed = try JSONValue.parse(bytes)
        if let violation { fatalError("JSONValue.parse read a text StrictJSON refuses: \(violation)") }
    } catch {
        if error != violation { fatalError("JSONValue.parse refused \(error), StrictJSON.validate said \(String(describing: violation))") }
    }
    if let parsed, !bytes.isEmpty {
        let request = HTTPRequest(method: .post, target: "/", headers: ["Content-Type": "application/json"], body: bytes)
        var context = RequestContext(requestId: "fuzz", logger: .disabled)
        context.jsonBody = parsed
        let route = outcome { try request.decodeJSON(Body.self, context) }
        let foundation = outcome { try decodeWithFoundation(Body.self, bytes) }
        if route != foundation { fatalError("decodeJSON: \(route)\nJSONDecoder: \(foundation)") }
    }
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
