import Foundation

/// Decoding helpers shared by the Stripe objects: Unix-second timestamps, fields that are an id
/// or an expanded object, metadata that may be null.
enum StripeJSON {
    /// Decodes `bytes` as `T`, turning every failure into a `StripeError.decoding` naming `what`.
    static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8], what: String) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw StripeError.decoding(.init(what: what, decodingError: error))
        } catch let error as StripeError {
            throw error
        } catch {
            throw StripeError.decoding(.init(what: what, reason: "could not be read as JSON"))
        }
    }

    static func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }
}

/// A reference Stripe returns either as an id string or, when expanded, as an object with an `id`.
struct StripeExpandableID: Decodable {
    let id: String

    private enum Keys: String, CodingKey { case id }

    init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let id = try? single.decode(String.self) {
            self.id = id
            return
        }
        id = try decoder.container(keyedBy: Keys.self).decode(String.self, forKey: .id)
    }
}

/// Stripe's `{"object": "list", "data": [...]}`.
struct StripeList<Element: Decodable>: Decodable {
    let data: [Element]
}

extension KeyedDecodingContainer {
    func stripeDate(_ key: Key) throws -> Date {
        StripeJSON.date(try decode(Int64.self, forKey: key))
    }

    func stripeDateIfPresent(_ key: Key) throws -> Date? {
        try decodeIfPresent(Int64.self, forKey: key).map(StripeJSON.date)
    }

    func stripeIDIfPresent(_ key: Key) throws -> String? {
        try decodeIfPresent(StripeExpandableID.self, forKey: key)?.id
    }

    func stripeMetadata(_ key: Key) throws -> [String: String] {
        try decodeIfPresent([String: String].self, forKey: key) ?? [:]
    }
}
