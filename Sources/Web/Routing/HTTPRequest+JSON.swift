import Foundation
import HTTPCore
import HTTPRouting

extension HTTPRequest {
    /// Decodes a JSON body into `T` with snake_case keys, answering precise 4xx errors:
    /// 415 for another content type, 400 for a body that is not strict RFC 8259 JSON
    /// (refused before the route runs: `StrictJSONMiddleware`), 400 naming the missing or
    /// mistyped field.
    /// - Throws: `APIError` (`unsupported_media_type` or `bad_request`).
    public func decodeJSON<T: Decodable>(_ type: T.Type) throws -> T {
        try checkJSONBody()
        return try decodeWithFoundation(type)
    }

    /// `decodeJSON` for bodies with a JSONDecoder-free fast path (`FlatJSONDecodable`); the
    /// same answers, errors included.
    func decodeJSON<T: FlatJSONDecodable>(_ type: T.Type) throws -> T {
        try checkJSONBody()
        if let object = FlatJSONObject(body), let value = T(flat: object) { return value }
        return try decodeWithFoundation(type)
    }

    private func checkJSONBody() throws {
        if !declaresJSONBody, let media = mediaType {
            throw APIError.unsupportedMediaType("Send the body as application/json, not \(media).")
        }
        guard !body.isEmpty else {
            throw APIError.badRequest("The request body is empty; send a JSON object.")
        }
    }

    /// JSONDecoder, which alone accepts trailing commas and duplicate keys: every route runs
    /// behind `StrictJSONMiddleware`, so the body it reads is strict JSON.
    private func decodeWithFoundation<T: Decodable>(_ type: T.Type) throws -> T {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            return try decoder.decode(T.self, from: Data(body))
        } catch let error as DecodingError {
            throw APIError.badRequest(HTTPRequest.describe(error))
        } catch {
            throw APIError.badRequest("The body is not valid JSON.")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey], _ last: (any CodingKey)? = nil) -> String {
            var names: [String] = []
            for key in keys + (last.map { [$0] } ?? []) {
                if let index = key.intValue { names.append("[\(index)]") } else { names.append(snakeCase(key.stringValue)) }
            }
            return names.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "Field '\(path(context.codingPath, key))' is missing."
        case .typeMismatch(let expected, let context):
            return "Field '\(path(context.codingPath))' must be \(describe(expected))."
        case .valueNotFound(let expected, let context):
            return "Field '\(path(context.codingPath))' must be \(describe(expected)), not null."
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "The body is not valid JSON." }
            return "Field '\(path(context.codingPath))' is invalid: \(context.debugDescription)"
        @unknown default:
            return "The body does not match what this endpoint expects."
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        if type == String.self { return "a string" }
        if type == Int.self || type == Int64.self || type == Int32.self { return "an integer" }
        if type == Double.self || type == Float.self { return "a number" }
        if type == Bool.self { return "true or false" }
        return String(describing: type).hasPrefix("Array") ? "an array" : "an object"
    }

    private static func snakeCase(_ name: String) -> String {
        var out = ""
        for character in name {
            if character.isUppercase {
                out += "_" + character.lowercased()
            } else {
                out.append(character)
            }
        }
        return out
    }
}
