import App
import Configuration
import Foundation
import HTTPCore
import HTTPRouting
import Logging
import Storage
import Synchronization
import TestSupport
import TollgateClient
import Web

/// A time source the test moves by hand (code and token lifetimes).
final class ManualClock: Sendable {
    private let date = Mutex(Date(timeIntervalSince1970: 1_850_000_000))
    var now: Date { date.withLock { $0 } }
    func advance(seconds: TimeInterval) { date.withLock { $0 += seconds } }
}

/// The real service on a loopback port (temp database and mail folder, a clock the test
/// moves), with a fake Stripe and a fake Google Play beside it, and `Tollgate` clients pointed
/// at it. Setup steps (a paid checkout, a Play purchase) go through the app's responder in
/// process; everything the client does goes over the socket.
final class LiveTollgate: Sendable {
    static let apiKey = "pk_client_test_key"
    static let packageName = "com.example.app"
    /// Retries fast enough for tests; `Retry-After` up to 5 s is honoured.
    static let quickRetries = RetryPolicy(
        maxAttempts: RetryPolicy.standard.maxAttempts, baseDelay: .milliseconds(20), maxDelay: .milliseconds(200), maxRetryAfter: .seconds(5))

    let clock = ManualClock()
    let folder: String
    let stripe: FakeStripe
    let google: FakeGooglePlay
    let app: TollgateApp

    /// `http://127.0.0.1:PORT` of the live service.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(app.server.port)")! }

    /// - Parameter redemption: members of the `redemption` config (e.g. `on_other_user`).
    init(redemption: [String: Any] = [:]) throws {
        let clock = self.clock
        folder = NSTemporaryDirectory() + "tollgate-client-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        stripe = try FakeStripe(webhookSecret: "whsec_client_test", knownPrices: ["price_monthly"], now: { clock.now })
        google = try FakeGooglePlay(packageName: Self.packageName, now: { clock.now })
        let serviceAccount = try google.writeServiceAccountFile(in: URL(fileURLWithPath: folder))
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().path
        let config: [String: Any] = [
            "base_url": "https://pay.example.com",
            "listen": ["host": "127.0.0.1", "port": 0],
            "database": ["path": folder + "/tollgate.sqlite"],
            "secret_key": "client-tests-secret-key-abcdefghijklmnopqrstuvwxyz",
            "mail": ["transport": "file", "file_dir": folder + "/mail", "from": "Example <no-reply@example.com>"],
            "paths": ["templates_dir": root + "/templates", "public_dir": root + "/Public"],
            "api_keys": ["public": [Self.apiKey]],
            "app": ["name": "Example", "scheme": "exampleapp", "android": ["package_name": Self.packageName]],
            "stripe": ["secret_key": "sk_test_fake_123", "webhook_secret": "whsec_client_test", "api_base": stripe.baseURL],
            "plans": ["monthly": ["price_id": "price_monthly", "mode": "subscription"]],
            "products": ["pro_monthly"],
            "entitlements": ["premium": ["price_monthly", "pro_monthly"]],
            "google": ["service_account_path": serviceAccount.path, "api_base": google.baseURL, "rtdn_token": "client-rtdn-token"],
            "redemption": redemption.merging(["code_ttl_seconds": 3600, "resend_interval_seconds": 600]) { mine, _ in mine }
        ]
        let file = folder + "/config.json"
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: file))
        app = try TollgateApp(config: try ConfigLoader.load(path: file, environment: [:]), logger: .disabled, now: { clock.now })
        try app.start()
    }

    /// Runs `body` against a fresh service and stops it afterwards, whether `body` threw or not.
    static func run(redemption: [String: Any] = [:], _ body: (LiveTollgate) async throws -> Void) async throws {
        let live = try LiveTollgate(redemption: redemption)
        do {
            try await body(live)
        } catch {
            await live.stop()
            throw error
        }
        await live.stop()
    }

    func stop() async {
        await app.shutdown()
        await stripe.stop()
        await google.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// A client of this service (or of `proxy` in front of it) with its own token storage.
    func client(storage: any TokenStorage = InMemoryTokenStorage(), through proxy: FlakyProxy? = nil, apiKey: String = apiKey) -> Tollgate {
        Tollgate(
            configuration: TollgateConfiguration(
                baseURL: proxy?.baseURL ?? baseURL, apiKey: apiKey, appScheme: "exampleapp", retryPolicy: Self.quickRetries,
                requestTimeout: .seconds(60)),
            storage: storage)
    }

    /// A proxy in front of this service that applies `steps` to the first connections.
    func proxy(_ steps: [FlakyProxy.Step]) throws -> FlakyProxy {
        try FlakyProxy(upstreamPort: app.server.port, steps: steps)
    }

    /// One request through the app's responder, in process (setup steps, browser pages).
    func send(_ method: HTTPMethod, _ target: String, headers: HTTPHeaders = [:], body: [UInt8] = []) async -> HTTPResponse {
        let context = RequestContext(requestId: "client-test-" + UUID().uuidString.prefix(8), logger: .disabled, remoteAddress: "198.51.100.20")
        return await app.responder.respond(to: HTTPRequest(method: method, target: target, headers: headers, body: body), context: context)
    }

    /// `/checkout/start` with `query` as a browser opens it; the Stripe session id it redirected to.
    func startCheckout(_ target: String) async throws -> String {
        let response = await send(.get, target)
        guard response.status == .seeOther, let id = response.headers["Location"]?.split(separator: "/").last, id.hasPrefix("cs_") else {
            throw ProxyError(description: "checkout start answered \(response.status): \(String(decoding: response.body.prefix(300), as: UTF8.self))")
        }
        return String(id)
    }

    /// Pays `sessionID` at the fake Stripe and loads the success page; the page's HTML.
    func payAndLand(_ sessionID: String) async throws -> String {
        _ = try stripe.completeSession(id: sessionID, email: "buyer@example.com", paid: true, periodEnd: clock.now.addingTimeInterval(30 * 86400))
        let page = await send(.get, "/checkout/success?session_id=" + sessionID)
        return String(decoding: page.body, as: UTF8.self)
    }

    /// A paid monthly plan's redemption code, read from the success page's universal link the
    /// way the app would read it.
    func paidCode() async throws -> String {
        let page = try await payAndLand(try await startCheckout("/checkout/start?plan=monthly&email=buyer%40example.com"))
        guard let range = page.range(of: #"https://pay\.example\.com/redeem/[0-9A-Za-z-]+"#, options: .regularExpression),
            case .redeem(let code)? = TollgateLink(url: URL(string: String(page[range]))!)
        else { throw ProxyError(description: "no redeem link on the success page") }
        return code
    }

    /// A single integer from `sql` against the service's database.
    func count(_ sql: String) async throws -> Int {
        try await app.database.read { connection in
            guard let row = try connection.queryOne(sql), case .integer(let value) = row[0] else { return -1 }
            return Int(value)
        }
    }
}
