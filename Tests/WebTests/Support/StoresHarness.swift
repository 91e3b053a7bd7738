import Crypto
import Domain
import Foundation
import HTTPCore
import HTTPRouting
import Storage
import TestSupport

@testable import Web
@testable import App

/// The whole service against a fake App Store, a fake Google Play and a fake Stripe, all on
/// loopback, with a clock the test moves. Store config points at the fakes.
struct StoresHarness {
    static let apiKey = "pk_test_app_key"
    static let serverKey = "sk_server_partner_key"
    static let rtdnToken = "rtdn-secret-token-42"
    static let sharedSecret = "apple-shared-secret"
    static let bundleID = "com.example.app"
    static let appAppleID = 1_234_567_890
    static let issuerID = "57246542-96fe-1a63-e053-0824d011072a"
    static let keyID = "2X9R4HXF34"
    static let stripeWebhookSecret = "whsec_test_secret"

    let clock = TestClock()
    let files: TemporaryDirectory
    let pki: FakeApplePKI
    let apple: FakeAppStoreServer
    /// Apple's External Purchase Server API (link-out reports), same credentials as `apple`.
    let externalPurchase: FakeAppleExternalPurchase
    let google: FakeGooglePlay
    let stripe: FakeStripe
    let app: TestApp

    /// - Parameters:
    ///   - extra: top-level config members replacing the harness's (e.g. `redemption`).
    ///   - appStoreAPI: false for a verifyReceipt-only deployment (no `apple.api` key).
    init(appleEnvironment: String = "Sandbox", appStoreAPI: Bool = true, extra: [String: Any] = [:]) async throws {
        let clock = self.clock
        files = try TemporaryDirectory()
        pki = try await FakeApplePKI.shared()
        let keyPath = SharedVectors.url("apple/certs/testSigningKey.p8").path
        let apiKey = try SigningKey(pem: try String(contentsOfFile: keyPath, encoding: .utf8))
        let credentials = FakeAppStoreServer.Credentials(
            issuerID: Self.issuerID, keyID: Self.keyID, bundleID: Self.bundleID, publicKey: try apiKey.verificationKey())
        apple = try FakeAppStoreServer(credentials: credentials, sharedSecret: Self.sharedSecret, clock: clock.function)
        externalPurchase = try FakeAppleExternalPurchase(credentials: credentials, clock: clock.function)
        google = try FakeGooglePlay(packageName: Self.bundleID, now: clock.function)
        stripe = try FakeStripe(webhookSecret: Self.stripeWebhookSecret, knownPrices: ["price_monthly"], now: clock.function)
        let rootPath = files.path + "/root.cer"
        try Data(pki.root.der).write(to: URL(fileURLWithPath: rootPath))
        let serviceAccount = try google.writeServiceAccountFile(in: URL(fileURLWithPath: files.path))
        var config: [String: Any] = [
            "base_url": "https://pay.example.com",
            "api_keys": ["public": [Self.apiKey], "server": [Self.serverKey]],
            "entitlements": [
                "premium": ["com.example.monthly", "pro_monthly", "price_monthly"],
                "lifetime": ["com.example.lifetime", "coins_lifetime"]
            ],
            "products": ["com.example.monthly", "com.example.lifetime", "pro_monthly"],
            "stripe": ["secret_key": "sk_test_fake_123", "api_base": stripe.baseURL, "webhook_secret": Self.stripeWebhookSecret],
            "app": [
                "name": "Example", "scheme": "exampleapp",
                "ios": ["bundle_id": Self.bundleID, "app_apple_id": Self.appAppleID],
                "android": ["package_name": Self.bundleID]
            ],
            "apple": [
                "environment": appleEnvironment, "root_certificates": [rootPath], "shared_secret": Self.sharedSecret,
                "verify_receipt_url": apple.productionReceiptURL.absoluteString,
                "verify_receipt_sandbox_url": apple.sandboxReceiptURL.absoluteString,
                "api": [
                    "issuer_id": Self.issuerID, "key_id": Self.keyID, "private_key_path": keyPath,
                    "base_url": apple.productionBaseURL.absoluteString, "sandbox_base_url": apple.sandboxBaseURL.absoluteString,
                    "external_purchase_base_url": externalPurchase.productionBaseURL.absoluteString,
                    "external_purchase_sandbox_base_url": externalPurchase.sandboxBaseURL.absoluteString
                ]
            ],
            "google": ["service_account_path": serviceAccount.path, "api_base": google.baseURL, "rtdn_token": Self.rtdnToken]
        ]
        if !appStoreAPI, var apple = config["apple"] as? [String: Any] {
            apple["api"] = nil
            config["apple"] = apple
        }
        for (key, value) in extra { config[key] = value }
        app = try TestApp(extra: config, now: clock.function)
    }

    func stop() async {
        await apple.stop()
        await externalPurchase.stop()
        await google.stop()
        await stripe.stop()
    }

    // MARK: Apple

    /// Posts an App Store notification signed with `chain` to `/webhooks/apple`. With the valid
    /// chain the fake App Store sends it, so it is in its notification history too.
    func appleNotification(_ notification: FakeAppStoreNotification, chain: FakeApplePKI.Chain = .valid) async throws -> HTTPResponse {
        let body = chain == .valid ? try apple.send(notification, signer: pki.signer()) : try pki.signer(chain).notificationBody(notification)
        return await app.send(.post, "/webhooks/apple", headers: ["Content-Type": "application/json"], bytes: body)
    }

    /// A renewing subscription transaction of `originalID` signed at `signedAt`, expiring at `expires`.
    func transaction(
        _ originalID: String = "2000000000000001", transactionID: String? = nil, product: String = "com.example.monthly",
        expires: Date?, signedAt: Date, environment: String = "Sandbox", appAccountToken: String? = nil,
        revokedAt: Date? = nil, revocationReason: Int? = nil
    ) -> FakeAppStoreTransaction {
        FakeAppStoreTransaction(
            transactionID: transactionID ?? originalID, originalTransactionID: originalID, bundleID: Self.bundleID, productID: product,
            purchaseDate: signedAt.addingTimeInterval(-60), expiresDate: expires,
            type: expires == nil ? "Non-Consumable" : "Auto-Renewable Subscription", environment: environment,
            appAccountToken: appAccountToken, revocationDate: revokedAt, revocationReason: revocationReason, signedDate: signedAt)
    }

    // MARK: Stripe

    /// Delivers an event the fake Stripe recorded to `/webhooks/stripe`, signed now.
    func deliver(_ event: FakeStripe.Event) async -> HTTPResponse {
        let signature = FakeStripe.signatureHeader(
            body: event.body, timestamp: Int(clock.now.timeIntervalSince1970), secret: Self.stripeWebhookSecret)
        return await app.send(
            .post, "/webhooks/stripe", headers: ["Stripe-Signature": signature, "Content-Type": "application/json"], bytes: event.body)
    }

    // MARK: Google

    /// Posts an RTDN push to `/webhooks/google` with the configured token (or `token`).
    func googleNotification(
        _ notification: FakeGooglePlay.RTDN, messageID: String, token: String? = rtdnToken,
        packageName: String = bundleID, eventTime: Date? = nil
    ) async -> HTTPResponse {
        let body = FakeGooglePlay.rtdnPushBody(notification, packageName: packageName, messageID: messageID, eventTime: eventTime ?? clock.now)
        let query = token.map { "?token=" + FormURLEncoding.encode($0) } ?? ""
        return await app.send(.post, "/webhooks/google" + query, headers: ["Content-Type": "application/json"], bytes: body)
    }

    // MARK: App calls

    /// `GET /api/v1/entitlements?app_user_id=...` as JSON, or with a bearer token.
    func entitlements(appUserID: String? = nil, bearer: String? = nil) async -> [String: Any] {
        var headers: HTTPHeaders = ["X-Api-Key": Self.apiKey]
        if let bearer { headers.set("Authorization", "Bearer " + bearer) }
        let query = appUserID.map { "?app_user_id=" + FormURLEncoding.encode($0) } ?? ""
        return await app.send(.get, "/api/v1/entitlements" + query, headers: headers).jsonObject ?? [:]
    }

    /// The entitlement `id` of `json` (from `entitlements(...)`).
    static func entitlement(_ id: String, in json: [String: Any]) -> [String: Any]? {
        (json["entitlements"] as? [[String: Any]])?.first { $0["id"] as? String == id }
    }

    /// `POST /receipts` with the server key and `platform`.
    func receipts(_ body: [String: Any], platform: String?, key: String? = serverKey) async throws -> HTTPResponse {
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        if let key { headers.set("X-API-KEY", key) }
        if let platform { headers.set("X-PLATFORM-TYPE", platform) }
        let data = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
        return await app.send(.post, "/receipts", headers: headers, bytes: Array(data))
    }

    /// An account with a signed-in session; returns (account id, access token).
    func signedInAccount() async throws -> (accountID: String, accessToken: String) {
        let services = app.app.essentials
        let now = clock.now
        return try await app.app.database.write { connection in
            let account = try AccountRepository.create(secrets: services.secrets, on: connection, now: now)
            let tokens = try SessionRepository.issue(accountID: account.id, deviceID: nil, on: connection, now: now)
            return (account.id, tokens.accessToken)
        }
    }

    /// A fresh access token for `accountID` (tokens expire when a test moves the clock far).
    func accessToken(for accountID: String) async throws -> String {
        let now = clock.now
        return try await app.app.database.write { try SessionRepository.issue(accountID: accountID, deviceID: nil, on: $0, now: now).accessToken }
    }

    /// The obfuscated id of `accountID` (what apps set as `appAccountToken`).
    func obfuscatedID(_ accountID: String) async throws -> String {
        try await app.app.database.read { try AccountRepository.require(id: accountID, on: $0).obfuscatedID }
    }

    /// The stored purchase of `platform` known by `reference`.
    func purchase(_ platform: Platform, _ reference: String) async throws -> Purchase? {
        try await app.app.database.read { try PurchaseRepository.find(platform: platform, reference: reference, on: $0) }
    }

    /// A single integer from `sql`.
    func count(_ sql: String) async throws -> Int {
        try await app.app.database.read { connection in
            guard let row = try connection.queryOne(sql), case .integer(let value) = row[0] else { return -1 }
            return Int(value)
        }
    }
}
