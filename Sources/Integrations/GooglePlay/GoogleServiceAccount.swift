import Crypto
import Foundation
import JSON

/// A Google Cloud service account's credentials, read from the JSON key file the Cloud console
/// downloads (`client_email`, `private_key`, `private_key_id`, `token_uri`). The private key is
/// parsed once and never appears in errors or descriptions.
public struct GoogleServiceAccount: Sendable, CustomStringConvertible {
    /// The account's email, the assertion's `iss`.
    public let clientEmail: String
    /// The id of the key, the assertion header's `kid`.
    public let privateKeyID: String
    /// The OAuth token endpoint, the assertion's `aud` and where it is posted; used as written.
    public let tokenURI: String
    /// `tokenURI` as a URL.
    public let tokenURL: URL
    /// The RS256 key parsed from `private_key`.
    let signingKey: SigningKey

    /// Parses a service-account JSON key file's contents.
    /// - Throws: `GooglePlayError.invalidServiceAccount` naming the missing or bad field.
    public init(json: [UInt8]) throws {
        guard let object = GoogleJSON.object(json) else {
            throw GooglePlayError(.invalidServiceAccount, "the service account file is not a JSON object")
        }
        if let type = object["type"]?.stringValue, type != "service_account" {
            throw GooglePlayError(
                .invalidServiceAccount,
                "the credentials file has type \"\(type.prefix(40))\"; a service account key (type \"service_account\") is required")
        }
        func field(_ name: String) throws -> String {
            guard let value = object[name]?.nonEmptyString else {
                throw GooglePlayError(.invalidServiceAccount, "the service account JSON has no \"\(name)\" string")
            }
            return value
        }
        try self.init(
            clientEmail: field("client_email"), privateKeyPEM: field("private_key"),
            privateKeyID: field("private_key_id"), tokenURI: field("token_uri"))
    }

    /// Reads and parses a service-account JSON key file.
    /// - Throws: `GooglePlayError.invalidServiceAccount` if the file cannot be read or parsed.
    public init(contentsOfFile path: String) throws {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw GooglePlayError(.invalidServiceAccount, "cannot read the service account file at \(path)")
        }
        do {
            try self.init(json: Array(data))
        } catch let error as GooglePlayError {
            throw GooglePlayError(error.kind, "\(path): \(error.message)")
        }
    }

    /// Builds an account from its parts.
    /// - Throws: `GooglePlayError.invalidServiceAccount` if the key is not a PEM RSA private key
    ///   or `tokenURI` is not an http(s) URL.
    public init(clientEmail: String, privateKeyPEM: String, privateKeyID: String, tokenURI: String) throws {
        let key: SigningKey
        do {
            key = try SigningKey(pem: privateKeyPEM)
        } catch {
            throw GooglePlayError(.invalidServiceAccount, "the service account private_key is not a PEM private key")
        }
        guard key.algorithm == .rs256 else {
            throw GooglePlayError(.invalidServiceAccount, "the service account private_key is not an RSA key; Google signs with RS256")
        }
        guard let url = URL(string: tokenURI), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
            url.host != nil
        else {
            throw GooglePlayError(.invalidServiceAccount, "the service account token_uri \"\(tokenURI.prefix(200))\" is not an http(s) URL")
        }
        self.clientEmail = clientEmail
        self.privateKeyID = privateKeyID
        self.tokenURI = tokenURI
        self.tokenURL = url
        self.signingKey = key
    }

    /// The account without its key: `client_email` and `private_key_id`.
    public var description: String { "GoogleServiceAccount(\(clientEmail), key \(privateKeyID))" }
}
