import Configuration
import Crypto
import Foundation
import Integrations
import UseCases

/// Builds the store clients from the configuration (see `StoreClients` for which are built when).
extension StoreClients {
    /// Builds every configured client; `now` is the clock for JWT claims and token expiry.
    /// - Throws: `StartupError` naming the key of an unreadable root certificate,
    ///   `.p8` key or service-account file, or of a URL that cannot be parsed.
    public init(config: TollgateConfig, now: @escaping @Sendable () -> Date) throws {
        let bundleID = config.app.ios.bundleID
        try Self.checkPrerequisites(config)
        var verifier: AppStoreSignedDataVerifier?
        if let bundleID {
            let roots: [Certificate]
            do {
                roots = try AppleRootCertificates.load(paths: config.apple.rootCertificates)
            } catch AppStoreError.configuration(let error) {
                throw StartupError(key: "apple.root_certificates", error.message)
            }
            guard let environment = AppStoreEnvironment(configValue: config.apple.environment.rawValue) else {
                throw StartupError(key: "apple.environment", "\(config.apple.environment.rawValue) is not an App Store environment")
            }
            verifier = AppStoreSignedDataVerifier(
                trustedRoots: roots, bundleID: bundleID, appAppleID: config.app.ios.appAppleID, environment: environment)
        }

        let api = config.apple.api
        let appStoreAPI: AppStoreServerAPIClient?
        let verifyReceipt: VerifyReceiptClient?
        let googlePlay: GooglePlayClient?
        if let verifier, let bundleID, let issuerID = api.issuerID, let keyID = api.keyID, let keyPath = api.privateKeyPath {
            let pem: String
            do {
                pem = try String(contentsOfFile: keyPath, encoding: .utf8)
            } catch {
                throw StartupError(key: "apple.api.private_key_path", "cannot read the App Store Server API key file \(keyPath)")
            }
            let key: SigningKey
            do { key = try SigningKey(pem: pem) } catch {
                throw StartupError(
                    key: "apple.api.private_key_path", "\(keyPath) is not an App Store Server API key (a PEM P-256 private key, AuthKey_<key id>.p8)")
            }
            appStoreAPI = AppStoreServerAPIClient(
                issuerID: issuerID, keyID: keyID, privateKey: key, bundleID: bundleID,
                productionBaseURL: try Self.url(api.baseURL, key: "apple.api.base_url"),
                sandboxBaseURL: try Self.url(api.sandboxBaseURL, key: "apple.api.sandbox_base_url"),
                http: URLSessionHTTPClient(service: "app_store"), verifier: verifier, clock: now)
        } else {
            appStoreAPI = nil
        }

        if let bundleID, let secret = config.apple.sharedSecret {
            verifyReceipt = VerifyReceiptClient(
                sharedSecret: secret, productionURL: try Self.url(config.apple.verifyReceiptURL, key: "apple.verify_receipt_url"),
                sandboxURL: try Self.url(config.apple.verifyReceiptSandboxURL, key: "apple.verify_receipt_sandbox_url"),
                bundleID: bundleID, http: URLSessionHTTPClient(service: "app_store"),
                firstEnvironment: config.apple.environment == .sandbox ? .sandbox : .production)
        } else {
            verifyReceipt = nil
        }

        if let path = config.google.serviceAccountPath, let packageName = config.app.android.packageName {
            let account: GoogleServiceAccount
            do {
                account = try GoogleServiceAccount(contentsOfFile: path)
            } catch let error as GooglePlayError {
                throw StartupError(key: "google.service_account_path", error.message)
            }
            let http = URLSessionHTTPClient(service: GooglePlayClient.service)
            googlePlay = GooglePlayClient(
                packageName: packageName, apiBase: try Self.url(config.google.apiBase, key: "google.api_base"),
                tokens: GoogleAccessTokenProvider(serviceAccount: account, http: http, now: now), http: http)
        } else {
            googlePlay = nil
        }
        self.init(appleVerifier: verifier, appStoreAPI: appStoreAPI, verifyReceipt: verifyReceipt, googlePlay: googlePlay)
    }

    /// A store credential without the app it belongs to is a mistake, not "store off".
    private static func checkPrerequisites(_ config: TollgateConfig) throws {
        if config.app.ios.bundleID == nil {
            if config.apple.api.privateKeyPath != nil {
                throw StartupError(key: "app.ios.bundle_id", "is required when apple.api.* is set (the App Store Server API is per app)")
            }
            if config.apple.sharedSecret != nil {
                throw StartupError(key: "app.ios.bundle_id", "is required when apple.shared_secret is set (receipts are checked against it)")
            }
        }
        if config.app.android.packageName == nil, config.google.serviceAccountPath != nil || config.google.rtdnToken != nil {
            throw StartupError(key: "app.android.package_name", "is required when google.service_account_path or google.rtdn_token is set")
        }
    }

    private static func url(_ text: String, key: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
            throw StartupError(key: key, "\(text) is not an http(s) URL")
        }
        return url
    }
}
