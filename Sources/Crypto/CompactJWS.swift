import Foundation
import JSON

/// A strictly parsed JWS/JWT in compact serialization (RFC 7515 §7.1).
///
/// Parsing guarantees exactly three dot-separated strict-base64url parts, a JSON-object header with
/// a string `alg`, and a JSON-object payload. It does not verify anything.
public struct CompactJWS: Sendable {
    /// Largest compact text accepted; far above any store-signed payload.
    public static let maximumLength = 1 << 20

    /// The decoded header JSON bytes.
    public let header: [UInt8]
    /// The decoded payload JSON bytes.
    public let payload: [UInt8]
    /// The decoded signature bytes.
    public let signature: [UInt8]
    /// The ASCII bytes `base64url(header).base64url(payload)` that the signature covers.
    public let signingInput: [UInt8]
    /// The header's `alg`.
    public let algorithm: String
    /// The header's `kid`, if present.
    public let keyID: String?
    /// The header's `x5c` entries (standard base64 DER), if present.
    public let x5c: [String]?
    /// The payload's `signedDate` in Unix milliseconds, if present and numeric.
    public let signedDateMilliseconds: Double?

    /// Parses `compact` strictly.
    /// - Throws: `CryptoError.invalidJWSFormat` for anything malformed.
    public init(parsing compact: String) throws {
        func bad(_ why: String) -> CryptoError { CryptoError(.invalidJWSFormat, "JWS \(why)") }
        guard compact.utf8.count <= Self.maximumLength else { throw bad("is longer than \(Self.maximumLength) bytes") }
        let parts = compact.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw bad("has \(parts.count) parts; exactly 3 required") }
        guard !parts[0].isEmpty, !parts[1].isEmpty, !parts[2].isEmpty else { throw bad("has an empty part") }
        let names = ["header", "payload", "signature"]
        var decoded: [[UInt8]] = []
        for (index, part) in parts.enumerated() {
            do {
                decoded.append(try Base64URL.decode(String(decoding: part, as: UTF8.self)))
            } catch {
                throw bad("\(names[index]) is not strict base64url")
            }
        }
        guard let headerObject = Self.jsonObject(decoded[0]) else { throw bad("header is not a JSON object") }
        guard let payloadObject = Self.jsonObject(decoded[1]) else { throw bad("payload is not a JSON object") }
        guard let algorithm = headerObject["alg"]?.stringValue else { throw bad("header has no string alg") }
        var x5c: [String]?
        if let value = headerObject["x5c"] {
            guard case .array(let items) = value, items.allSatisfy({ $0.stringValue != nil }) else {
                throw bad("header x5c is not an array of strings")
            }
            x5c = items.compactMap(\.stringValue)
        }
        var keyID: String?
        if let value = headerObject["kid"] {
            guard let string = value.stringValue else { throw bad("header kid is not a string") }
            keyID = string
        }
        var signedDate: Double?
        if let value = payloadObject["signedDate"] {
            switch value {
            case .integer(let number): signedDate = Double(number)
            case .number(let number): signedDate = number
            default: throw bad("payload signedDate is not a number")
            }
            guard signedDate?.isFinite == true else { throw bad("payload signedDate is not finite") }
        }
        self.header = decoded[0]
        self.payload = decoded[1]
        self.signature = decoded[2]
        self.signingInput = Array(compact.utf8.prefix(parts[0].count + 1 + parts[1].count))
        self.algorithm = algorithm
        self.keyID = keyID
        self.x5c = x5c
        self.signedDateMilliseconds = signedDate
    }

    /// Decodes the payload JSON into `type`.
    /// - Throws: `CryptoError.invalidJWSFormat` if it does not decode.
    public func decodePayload<T: Decodable>(_ type: T.Type) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(payload))
        } catch {
            throw CryptoError(.invalidJWSFormat, "JWS payload does not decode as \(T.self)")
        }
    }

    /// Verifies the signature with `key`; the header `alg` must be the key's algorithm.
    /// - Throws: `CryptoError.unsupportedAlgorithm` for an `alg` mismatch, `.malformedSignature`,
    ///   `.signatureMismatch`.
    public func verify(with key: VerificationKey) throws {
        guard algorithm == key.algorithm.rawValue else {
            throw CryptoError(.unsupportedAlgorithm, "JWS alg \(algorithm) does not match the \(key.algorithm.rawValue) key")
        }
        guard try key.isValidSignature(signature, for: signingInput) else {
            throw CryptoError(.signatureMismatch, "JWS signature does not verify")
        }
    }

    /// Signs raw header and payload JSON bytes, returning the compact serialization.
    /// The header is used as given: it must name the key's algorithm in `alg`.
    /// - Throws: `CryptoError` from signing.
    public static func sign(headerJSON: [UInt8], payloadJSON: [UInt8], key: SigningKey) throws -> String {
        let input = Base64URL.encode(headerJSON) + "." + Base64URL.encode(payloadJSON)
        let signature = try key.sign(Array(input.utf8))
        return input + "." + Base64URL.encode(signature)
    }

    /// Signs an ordered header and claims; members are serialized in the order given.
    /// - Throws: `CryptoError` from signing.
    public static func sign(header: JSONValue, claims: JSONValue, key: SigningKey) throws -> String {
        try sign(headerJSON: header.serialized(), payloadJSON: claims.serialized(), key: key)
    }

    /// Signs `Encodable` header and claims, serialized with sorted keys and unescaped slashes.
    /// - Throws: `CryptoError.invalidParameter` if encoding fails, or a signing error.
    public static func sign(header: some Encodable, claims: some Encodable, key: SigningKey) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            let headerJSON = try encoder.encode(header)
            let claimsJSON = try encoder.encode(claims)
            return try sign(headerJSON: Array(headerJSON), payloadJSON: Array(claimsJSON), key: key)
        } catch let error as CryptoError {
            throw error
        } catch {
            throw CryptoError(.invalidParameter, "JWT header or claims cannot be encoded as JSON")
        }
    }

    /// `bytes` read as strict JSON when they hold an object, else nil.
    private static func jsonObject(_ bytes: [UInt8]) -> JSONValue? {
        guard let value = try? JSONValue.parse(bytes), case .object = value else { return nil }
        return value
    }
}
