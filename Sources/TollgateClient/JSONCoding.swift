import Foundation

/// Decoding of the service's JSON: RFC 3339 timestamps, with or without fractional seconds.
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
enum JSONCoding {
    /// - Throws: `TollgateClientError` (`invalid_response`) naming the type that did not decode.
    static func decode<T: Decodable>(_ type: T.Type, from response: APIResponse) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            if let date = try? Date(text, strategy: .iso8601) { return date }
            if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(text) is not an RFC 3339 timestamp")
        }
        do {
            return try decoder.decode(T.self, from: response.body)
        } catch {
            throw TollgateClientError.invalidResponse(
                "The service's answer is not a \(T.self): \(error)", status: response.status, requestID: response.requestID)
        }
    }
}
