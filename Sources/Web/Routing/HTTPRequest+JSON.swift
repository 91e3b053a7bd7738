import HTTPCore
import HTTPRouting
import JSON

extension HTTPRequest {
    /// Decodes the JSON body into `T` with snake_case keys from the value the strict check read
    /// (`context.jsonBody`: the bytes are read once), answering precise 4xx errors: 415 for
    /// another content type, 400 for an empty body or one that is not strict RFC 8259 JSON
    /// (`StrictJSONCheck`), 400 naming the missing or mistyped field.
    /// - Throws: `APIError` (`unsupported_media_type` or `bad_request`).
    public func decodeJSON<T: Decodable>(_ type: T.Type, _ context: RequestContext) throws -> T {
        try decode(T.self, from: jsonBodyValue(context))
    }

    /// `decodeJSON` for a hot route: `read` takes the body's value when it has the plain shape
    /// (it returns nil for anything else), and the `Decodable` path, with its precise errors,
    /// decodes whatever it declines. The two must agree on every body `read` accepts.
    /// - Throws: `APIError` (`unsupported_media_type` or `bad_request`).
    public func decodeJSON<T: Decodable>(_ type: T.Type, _ context: RequestContext, reading read: (JSONValue) -> T?) throws -> T {
        let value = try jsonBodyValue(context)
        if let decoded = read(value) { return decoded }
        return try decode(T.self, from: value)
    }

    private func jsonBodyValue(_ context: RequestContext) throws -> JSONValue {
        // The strict check read it: the body is a non-empty JSON one.
        if let value = context.jsonBody { return value }
        if !declaresJSONBody, let media = mediaType {
            throw APIError.unsupportedMediaType("Send the body as application/json, not \(media).")
        }
        guard !body.isEmpty else {
            throw APIError.badRequest("The request body is empty; send a JSON object.")
        }
        return try strictJSONBody()
    }

    private func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        do {
            return try JSONValueDecoder(convertsFromSnakeCase: true).decode(T.self, from: value)
        } catch let error as DecodingError {
            throw APIError.badRequest(HTTPRequest.describe(error))
        }
    }

    /// The body read as strict JSON (what `StrictJSONCheck` does for every JSON body).
    /// - Throws: `APIError.badRequest` naming the fault and its byte offset.
    func strictJSONBody() throws -> JSONValue {
        do {
            return try JSONValue.parse(body)
        } catch {
            throw APIError.badRequest(error.message)
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey], _ last: (any CodingKey)? = nil) -> String {
            var text = ""
            for key in keys + (last.map { [$0] } ?? []) {
                if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + snakeCase(key.stringValue) }
            }
            return text
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
