import Crypto
import Foundation
import JSON

/// An external purchase token as StoreKit gives it to the app (`ExternalPurchaseCustomLink.token(for:)`
/// and the other External Purchase APIs): base64url-encoded JSON with `appAppleId`, `bundleId`,
/// `tokenCreationDate` (Unix ms) and `externalPurchaseId`, and for custom link tokens also
/// `tokenType` (`ACQUISITION`, `SERVICES`; `IN_APP`, `LINK_OUT` in Japan) and
/// `tokenExpirationDate` (https://developer.apple.com/documentation/storekit/receiving-and-decoding-external-purchase-tokens).
/// Sandbox tokens have an `externalPurchaseId` beginning with `SANDBOX`.
///
/// The token is not signed: decoding proves only its shape. Apple checks it when it is reported.
public struct ExternalPurchaseToken: Sendable, Equatable {
    /// `appAppleId`: the App Store id of the app the token was made for.
    public let appAppleID: Int64
    /// `bundleId`.
    public let bundleID: String
    /// `tokenCreationDate`.
    public let creationDate: Date
    /// `externalPurchaseId`: what reports name the token by.
    public let externalPurchaseID: String
    /// `tokenType`, present in custom link tokens only.
    public let tokenType: String?
    /// `tokenExpirationDate`, present in custom link tokens only.
    public let expirationDate: Date?

    /// The longest token accepted, in characters (Apple's are a few hundred).
    public static let maximumLength = 4096

    /// Decodes `token`. Padding (`=`) is accepted, as Apple's own examples carry it.
    /// - Throws: `AppStoreError.externalPurchaseToken` (`.malformed`, `.invalidField` naming the field).
    public init(decoding token: String) throws {
        guard !token.isEmpty, token.utf8.count <= Self.maximumLength else {
            throw AppStoreError.externalPurchaseToken(
                .init(.malformed, "an external purchase token is 1–\(Self.maximumLength) characters of base64url"))
        }
        var text = Substring(token)
        while text.hasSuffix("=") { text = text.dropLast() }
        guard let bytes = try? Base64URL.decode(String(text)) else {
            throw AppStoreError.externalPurchaseToken(.init(.malformed, "the external purchase token is not base64url"))
        }
        guard let object = (try? JSONValue.parse(bytes))?.objectValue else {
            throw AppStoreError.externalPurchaseToken(.init(.malformed, "the external purchase token is not a JSON object"))
        }
        appAppleID = try Self.integer(object, "appAppleId")
        bundleID = try Self.string(object, "bundleId")
        creationDate = Date(timeIntervalSince1970: Double(try Self.integer(object, "tokenCreationDate")) / 1000)
        externalPurchaseID = try Self.string(object, "externalPurchaseId")
        guard externalPurchaseID.utf8.count <= ExternalPurchaseReport.maximumExternalPurchaseIDLength,
            externalPurchaseID.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else {
            throw AppStoreError.externalPurchaseToken(
                .init(.invalidField, field: "externalPurchaseId", "externalPurchaseId is not 1–128 printable ASCII characters"))
        }
        tokenType = object["tokenType"] == nil ? nil : try Self.string(object, "tokenType")
        expirationDate =
            object["tokenExpirationDate"] == nil
            ? nil : Date(timeIntervalSince1970: Double(try Self.integer(object, "tokenExpirationDate")) / 1000)
    }

    /// Decodes `token` and checks it was made for our app.
    /// - Parameters:
    ///   - appAppleID: our app's App Store id (`app.ios.app_apple_id`); nil skips that check.
    /// - Throws: `AppStoreError.externalPurchaseToken` (`.malformed`, `.invalidField`, `.wrongBundleID`, `.wrongAppAppleID`).
    public init(decoding token: String, bundleID: String, appAppleID: Int64?) throws {
        try self.init(decoding: token)
        try check(bundleID: bundleID, appAppleID: appAppleID)
    }

    /// Throws unless the token names our app.
    /// - Throws: `AppStoreError.externalPurchaseToken` (`.wrongBundleID`) or `.wrongAppAppleID`.
    public func check(bundleID: String, appAppleID: Int64?) throws {
        guard self.bundleID == bundleID else {
            throw AppStoreError.externalPurchaseToken(
                .init(
                    .wrongBundleID, field: "bundleId", "the token was made for bundle id \(self.bundleID.prefix(200)), not \(bundleID)"))
        }
        if let appAppleID, self.appAppleID != appAppleID {
            throw AppStoreError.externalPurchaseToken(
                .init(
                    .wrongAppAppleID, field: "appAppleId", "the token was made for app \(self.appAppleID), not \(appAppleID)"))
        }
    }

    /// Whether the token was made in the sandbox (its `externalPurchaseId` begins with `SANDBOX`).
    public var isSandbox: Bool { externalPurchaseID.hasPrefix("SANDBOX") }

    private static func string(_ object: JSONValue, _ name: String) throws -> String {
        guard let value = object[name]?.nonEmptyString else {
            throw AppStoreError.externalPurchaseToken(.init(.invalidField, field: name, "\(name) is missing or not a non-empty string"))
        }
        return value
    }

    private static func integer(_ object: JSONValue, _ name: String) throws -> Int64 {
        // A JSON number only: not a string of digits, not `true`.
        guard let number = object[name]?.int64Value, number >= 0, number < 9_000_000_000_000_000 else {
            throw AppStoreError.externalPurchaseToken(.init(.invalidField, field: name, "\(name) is missing or not a non-negative integer"))
        }
        return number
    }
}
