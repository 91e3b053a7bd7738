import Crypto
import Foundation

/// The App Store Server API's bearer-token check, as the fake App Store applies it.
enum FakeAppStoreToken {
    /// Why `authorization` would be refused by Apple, or nil when it is acceptable at `now`.
    static func check(_ authorization: String?, credentials: FakeAppStoreServer.Credentials, now: Date) -> String? {
        guard let authorization, authorization.hasPrefix("Bearer ") else { return "no bearer token" }
        let token = String(authorization.dropFirst("Bearer ".count))
        guard let jws = try? CompactJWS(parsing: token) else { return "token is not a compact JWT" }
        guard jws.algorithm == "ES256" else { return "alg is \(jws.algorithm), not ES256" }
        do { try jws.verify(with: credentials.publicKey) } catch { return "signature does not verify: \(error)" }
        guard let header = try? JSONSerialization.jsonObject(with: Data(jws.header)) as? [String: Any],
            let claims = try? JSONSerialization.jsonObject(with: Data(jws.payload)) as? [String: Any]
        else {
            return "header or claims are not JSON objects"
        }
        guard header["typ"] as? String == "JWT" else { return "typ is not JWT" }
        guard header["kid"] as? String == credentials.keyID else { return "kid is not the key id" }
        guard claims["iss"] as? String == credentials.issuerID else { return "iss is not the issuer id" }
        guard claims["aud"] as? String == "appstoreconnect-v1" else { return "aud is not appstoreconnect-v1" }
        guard claims["bid"] as? String == credentials.bundleID else { return "bid is not the bundle id" }
        guard let iat = (claims["iat"] as? NSNumber)?.int64Value, let exp = (claims["exp"] as? NSNumber)?.int64Value else {
            return "iat or exp is missing"
        }
        let nowSeconds = Int64(now.timeIntervalSince1970)
        guard iat <= nowSeconds + 60 else { return "iat is in the future" }
        guard exp > nowSeconds else { return "token has expired" }
        guard exp - iat <= 3600 else { return "exp is more than 60 minutes after iat" }
        return nil
    }
}
