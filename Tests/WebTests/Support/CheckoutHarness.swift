import Foundation
import HTTPCore
import HTTPRouting
import Storage
import Synchronization
import TestSupport

@testable import Web
@testable import App

/// A clock the test moves by hand.
final class TestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    var function: @Sendable () -> Date { { self.now } }
}

/// The whole service against a fake Stripe started in the test, with a controllable clock.
struct CheckoutHarness {
    static let apiKey = "pk_test_app_key"
    static let webhookSecret = "whsec_test_secret"

    let clock = TestClock()
    let stripe: FakeStripe
    let app: TestApp

    /// - Parameter extra: top-level config members added to the harness's (e.g. `events`).
    /// - Parameter webhookSecrets: when given, configured as `stripe.webhook_secrets` instead of the one `webhook_secret`.
    init(redemption: [String: Any] = [:], extra: [String: Any] = [:], webhookSecrets: [String]? = nil) throws {
        let clock = self.clock
        stripe = try FakeStripe(
            webhookSecret: Self.webhookSecret, knownPrices: ["price_monthly", "price_lifetime", "price_elsewhere"], now: clock.function)
        var redemptionConfig: [String: Any] = [
            "code_ttl_seconds": 3600, "resend_interval_seconds": 600, "redirect_urls": ["https://example.com/welcome"]
        ]
        for (key, value) in redemption { redemptionConfig[key] = value }
        var config: [String: Any] = [
            "base_url": "https://pay.example.com",
            "stripe": ["secret_key": "sk_test_fake_123", "webhook_secret": Self.webhookSecret, "api_base": stripe.baseURL],
            "plans": [
                "monthly": ["price_id": "price_monthly", "mode": "subscription"], "lifetime": ["price_id": "price_lifetime", "mode": "payment"]
            ],
            "entitlements": ["premium": ["price_monthly", "price_lifetime"]],
            "api_keys": ["public": [Self.apiKey]],
            "redemption": redemptionConfig,
            "app": [
                "name": "Example", "scheme": "exampleapp",
                "ios": ["bundle_id": "com.example.app", "team_id": "ABCDE12345", "app_store_url": "https://apps.apple.com/app/id1"],
                "android": [
                    "package_name": "com.example.app",
                    "sha256_cert_fingerprints": ["00:01:02:03:04:05:06:07:08:09:0A:0B:0C:0D:0E:0F:10:11:12:13:14:15:16:17:18:19:1A:1B:1C:1D:1E:1F"],
                    "play_store_url": "https://play.google.com/store/apps/details?id=com.example.app"
                ]
            ]
        ]
        if let webhookSecrets {
            config["stripe"] = ["secret_key": "sk_test_fake_123", "webhook_secrets": webhookSecrets, "api_base": stripe.baseURL]
        }
        for (key, value) in extra { config[key] = value }
        app = try TestApp(extra: config, now: clock.function)
    }

    /// Starts a checkout like the paywall does and returns the Stripe session id.
    func startCheckout(_ query: String = "plan=monthly&app_user_id=user-1&email=buyer%40example.com") async throws -> String {
        let response = await app.send(.get, "/checkout/start?" + query)
        guard response.status == .seeOther, let location = response.headers["Location"] else {
            throw HarnessError("start: \(response.status) \(response.text.prefix(300))")
        }
        guard let id = location.split(separator: "/").last.map(String.init), id.hasPrefix("cs_") else {
            throw HarnessError("start: unexpected Location \(location)")
        }
        return id
    }

    /// Pays the session at the fake Stripe.
    func pay(_ sessionID: String, email: String = "buyer@example.com") throws {
        _ = try stripe.completeSession(id: sessionID, email: email, paid: true, periodEnd: clock.now.addingTimeInterval(30 * 86400))
    }

    func successPage(_ sessionID: String, userAgent: String = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0)") async -> HTTPResponse {
        await app.send(.get, "/checkout/success?session_id=\(sessionID)", headers: ["User-Agent": userAgent])
    }

    /// Posts a signed Stripe event to the webhook.
    func webhook(_ type: String, object: [String: Any], created: Date? = nil, id: String? = nil, signedAt: Date? = nil, secret: String? = nil) async
        -> HTTPResponse
    {
        let event = stripe.webhook(type: type, object: object, created: created ?? clock.now, id: id, signedAt: signedAt ?? clock.now, secret: secret)
        return await app.send(
            .post, "/webhooks/stripe", headers: ["Stripe-Signature": event.signatureHeader, "Content-Type": "application/json"], bytes: event.body)
    }

    /// Delivers an event the fake Stripe recorded, signed now, as Stripe would (`id` replaces its
    /// id, as a distinct event with the same content).
    func deliver(_ event: FakeStripe.Event, id: String? = nil) async -> HTTPResponse {
        var body = event.body
        if let id { body = Array(String(decoding: body, as: UTF8.self).replacingOccurrences(of: event.id, with: id).utf8) }
        let signature = FakeStripe.signatureHeader(body: body, timestamp: Int(clock.now.timeIntervalSince1970), secret: Self.webhookSecret)
        return await app.send(.post, "/webhooks/stripe", headers: ["Stripe-Signature": signature, "Content-Type": "application/json"], bytes: body)
    }

    /// `POST /api/v1/redeem`.
    func redeem(_ code: String, appUserID: String = "user-1", deviceID: String? = nil, headers: HTTPHeaders = [:], client: String = "198.51.100.7")
        async -> HTTPResponse
    {
        var body: [String: Any] = ["code": code, "app_user_id": appUserID]
        if let deviceID { body["device_id"] = deviceID }
        var all: HTTPHeaders = ["X-Api-Key": Self.apiKey, "Content-Type": "application/json"]
        for field in headers { all.set(field.name, field.value) }
        let data = try! JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
        return await app.send(.post, "/api/v1/redeem", headers: all, bytes: Array(data), remoteAddress: client)
    }

    /// The code shown on a success page.
    static func code(in page: HTTPResponse) -> String? {
        guard let range = page.text.range(of: #"aria-label="Redemption code ([0-9A-Z-]{19})""#, options: .regularExpression) else { return nil }
        return String(page.text[range].dropFirst(#"aria-label="Redemption code "#.count).dropLast())
    }

    func count(_ sql: String) async throws -> Int {
        try await app.app.database.read { connection in
            guard let row = try connection.queryOne(sql), case .integer(let value) = row[0] else { return -1 }
            return Int(value)
        }
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
