import Crypto

/// The demo credentials of the Stripe simulator: the secret key Tollgate's `StripeClient` sends
/// as `Authorization: Bearer ...` and the `whsec_...` secret its webhooks are signed with.
///
/// Both are derived from Tollgate's `secret_key` (HMAC-SHA256 with a fixed label), so the
/// running service and `tollgate demo ...` on the same host agree without storing anything, and
/// nobody without the secret key can call the simulator or forge its webhooks.
public struct SimulatorKeys: Sendable, Equatable {
    /// `sk_test_sim_...`: the only key the simulator's API accepts.
    public let apiKey: String
    /// `whsec_sim_...` (or the configured `stripe.webhook_secret`): signs every event.
    public let webhookSecret: String

    /// - Parameters:
    ///   - secretKey: Tollgate's `secret_key`.
    ///   - webhookSecret: a configured `stripe.webhook_secret` to sign with instead of the derived one.
    /// - Throws: `CryptoError` when OpenSSL cannot compute the HMAC.
    public init(secretKey: String, webhookSecret: String? = nil) throws {
        let mac = try HMACSHA256(key: Array(secretKey.utf8))
        apiKey = "sk_test_sim_" + Hex.encode(try mac.authenticationCode(for: Array("stripe-simulator api key".utf8))).prefix(32)
        let derived = "whsec_sim_" + Hex.encode(try mac.authenticationCode(for: Array("stripe-simulator webhook secret".utf8))).prefix(40)
        self.webhookSecret = webhookSecret ?? derived
    }
}
