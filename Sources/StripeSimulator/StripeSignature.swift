import Crypto

/// Signs a webhook body exactly as Stripe does: `Stripe-Signature: t=<unix seconds>,v1=<hex
/// HMAC-SHA256 of "<t>.<body>" keyed by the whole whsec_ secret>`.
public enum StripeSignature {
    /// The `Stripe-Signature` header for `body` signed at `timestamp`.
    /// - Throws: `CryptoError` when OpenSSL cannot compute the HMAC.
    public static func header(body: [UInt8], timestamp: Int, secret: String) throws -> String {
        var signed = Array("\(timestamp).".utf8)
        signed.append(contentsOf: body)
        let mac = try HMACSHA256(key: Array(secret.utf8)).authenticationCode(for: signed)
        return "t=\(timestamp),v1=\(Hex.encode(mac))"
    }
}
