import Integrations

/// The store clients built once from the configuration. Each is nil when its settings are
/// absent, so a deployment without a store (demo mode) still starts; a route needing a missing
/// one answers 503 naming the keys to set (`StoreClients.missing`).
///
/// | client | built when |
/// | --- | --- |
/// | `appleVerifier` | `app.ios.bundle_id` is set (roots: `apple.root_certificates`, environment: `apple.environment`, `app.ios.app_apple_id`) |
/// | `appStoreAPI` | the verifier exists and `apple.api.issuer_id`, `key_id`, `private_key_path` are set |
/// | `verifyReceipt` | `app.ios.bundle_id` and `apple.shared_secret` are set |
/// | `googlePlay` | `google.service_account_path` and `app.android.package_name` are set |
public struct StoreClients: Sendable {
    /// Verifies App Store signed data (transactions, notifications).
    public let appleVerifier: AppStoreSignedDataVerifier?
    /// The App Store Server API (transaction lookups).
    public let appStoreAPI: AppStoreServerAPIClient?
    /// Apple's legacy verifyReceipt endpoint.
    public let verifyReceipt: VerifyReceiptClient?
    /// The Google Play Developer API.
    public let googlePlay: GooglePlayClient?

    /// Clients given directly (tests, or a caller with its own HTTP clients).
    public init(
        appleVerifier: AppStoreSignedDataVerifier?, appStoreAPI: AppStoreServerAPIClient?,
        verifyReceipt: VerifyReceiptClient?, googlePlay: GooglePlayClient?
    ) {
        self.appleVerifier = appleVerifier
        self.appStoreAPI = appStoreAPI
        self.verifyReceipt = verifyReceipt
        self.googlePlay = googlePlay
    }
}

extension StoreClients {
    /// The configuration keys that enable each store feature, for 503 messages.
    public enum Missing {
        public static let appleVerifier =
            "App Store verification is not configured on this server: set app.ios.bundle_id (and apple.root_certificates, apple.environment)."
        public static let appStoreAPI =
            "The App Store Server API is not configured on this server: set app.ios.bundle_id, apple.api.issuer_id, apple.api.key_id and apple.api.private_key_path."
        public static let verifyReceipt =
            "App Store receipt verification is not configured on this server: set app.ios.bundle_id and apple.shared_secret."
        public static let googlePlay =
            "Google Play verification is not configured on this server: set app.android.package_name and google.service_account_path."
        public static let rtdn =
            "Google Play notifications are not configured on this server: set google.rtdn_token, app.android.package_name and google.service_account_path."
        public static let stripe = "Stripe is not configured on this server: set stripe.secret_key."
    }
}
