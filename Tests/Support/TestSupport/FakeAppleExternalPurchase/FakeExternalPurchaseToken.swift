import Crypto
import Foundation

/// External purchase tokens as StoreKit's `ExternalPurchaseCustomLink.token(for:)` gives them to
/// an app: base64url of a JSON object with `appAppleId`, `bundleId`, `tokenCreationDate` (Unix
/// ms), `externalPurchaseId` and `tokenType` (Apple's "Receiving and decoding external purchase
/// tokens"). The app, not Apple's server, holds them, so tests make their own.
public enum FakeExternalPurchaseToken {
    /// A token for `bundleID`; `externalPurchaseID` beginning with `SANDBOX` marks a sandbox one.
    public static func make(
        bundleID: String = "com.example.app", appAppleID: Int64 = 1_234_567_890, externalPurchaseID: String = "SANDBOX_" + UUID().uuidString,
        createdAt: Date = Date(), tokenType: String = "ACQUISITION"
    ) -> String {
        let object: [String: Any] = [
            "appAppleId": appAppleID, "bundleId": bundleID, "tokenCreationDate": Int64(createdAt.timeIntervalSince1970 * 1000),
            "externalPurchaseId": externalPurchaseID, "tokenType": tokenType
        ]
        let json = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return Base64URL.encode(Array(json))
    }
}
