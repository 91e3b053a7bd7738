import Foundation

/// Decoding helpers shared by the App Store payload models.
enum AppStoreJSON {
    /// A Unix-milliseconds date: integral from the App Store, fractional from Xcode.
    /// - Throws: `DecodingError` if the member is not a finite number.
    static func date<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, _ key: Key) throws -> Date? {
        guard let milliseconds = try container.decodeIfPresent(Double.self, forKey: key) else { return nil }
        guard milliseconds.isFinite else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "date is not a finite number")
        }
        return Date(timeIntervalSince1970: milliseconds / 1000)
    }

    /// Decodes `type` from JSON bytes, describing the failing member on error.
    /// - Throws: `AppStoreError.verification` (`.invalidFormat`).
    static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8], what: String) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(bytes))
        } catch let error as DecodingError {
            throw AppStoreError.verification(.init(.invalidFormat, "\(what) payload does not decode: \(describe(error))"))
        } catch {
            throw AppStoreError.verification(.init(.invalidFormat, "\(what) payload is not JSON"))
        }
    }

    /// A short description of a decoding error naming the member path, without the data.
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let joined = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            return joined.isEmpty ? "top level" : joined
        }
        switch error {
        case .typeMismatch(_, let context): return "\(path(context)) has the wrong type"
        case .valueNotFound(_, let context): return "\(path(context)) is null"
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return parent == "top level" ? "\(key.stringValue) is missing" : "\(parent).\(key.stringValue) is missing"
        case .dataCorrupted(let context): return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "invalid JSON"
        }
    }
}
