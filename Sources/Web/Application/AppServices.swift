import Configuration
import Domain
import Foundation
import Integrations
import Logging
import Mail
import Storage

/// What the route handlers share: configuration, the database, the domain services, mail,
/// and the clock (injected so tests can move time).
public final class AppServices: Sendable {
    public let config: TollgateConfig
    public let database: Database
    public let logger: Logger
    public let pages: Pages
    public let secrets: DomainSecrets
    public let vault: CodeVault
    public let catalog: EntitlementCatalog
    public let redemption: RedemptionService
    public let completion: CheckoutCompletion
    public let outboxWorker: OutboxWorker
    public let rateLimiter: RateLimiter
    /// Codes app users redeemed again lately, so retries skip straight to the writer.
    public let recentRepeats: RecentRepeats
    public let clientAddress: ClientAddressResolver
    public let now: @Sendable () -> Date
    /// The Stripe API, when `stripe.secret_key` is configured.
    public let stripe: StripeClient?
    /// The App Store and Google Play clients that are configured (`StoreClients`).
    public let stores: StoreClients
    let mailCipher: OutboxCipher
    let messageIDDomain: String

    init(
        config: TollgateConfig, database: Database, logger: Logger, pages: Pages, secrets: DomainSecrets,
        mailCipher: OutboxCipher, outboxWorker: OutboxWorker, now: @escaping @Sendable () -> Date
    ) throws {
        self.config = config
        self.database = database
        self.logger = logger
        self.pages = pages
        self.outboxWorker = outboxWorker
        self.now = now
        self.secrets = secrets
        self.mailCipher = mailCipher
        vault = try CodeVault(secrets: secrets)
        catalog = EntitlementCatalog(config.entitlements)
        let policy = RedemptionPolicy(
            onOtherUser: OtherUserPolicy(rawValue: config.redemption.onOtherUser.rawValue) ?? .switch,
            maxDevices: config.redemption.maxDevices,
            codeTTL: TimeInterval(config.redemption.codeTTLSeconds),
            resendInterval: TimeInterval(config.redemption.resendIntervalSeconds))
        redemption = RedemptionService(policy: policy, vault: vault, secrets: secrets)
        completion = CheckoutCompletion(codeTTL: policy.codeTTL, vault: vault, secrets: secrets)
        messageIDDomain = MailSetup.host(of: config.baseURL) ?? "tollgate.localhost"
        rateLimiter = RateLimiter()
        recentRepeats = RecentRepeats()
        clientAddress = ClientAddressResolver(trustedProxies: config.http.trustedProxyNetworks)
        stripe = config.stripe.secretKey.map {
            StripeClient(secretKey: $0, apiBase: config.stripe.apiBase, http: URLSessionHTTPClient(service: "stripe"))
        }
        stores = try StoreClients(config: config, now: now)
    }

    /// Queues an email in the caller's transaction, parameters sealed. Call `mailQueued()`
    /// after the transaction commits.
    /// - Throws: `MailError` for an invalid message, `StorageError`.
    @discardableResult
    func enqueueMail(
        key: String, template: String, to recipient: String, parameters: [String: String], on connection: Connection
    ) throws -> EnqueueResult {
        try Outbox.enqueue(
            OutboxMessage(idempotencyKey: key, template: template, recipient: recipient, parameters: parameters),
            on: connection, now: now(), messageIDDomain: messageIDDomain, cipher: mailCipher)
    }

    /// Wakes the outbox worker after a transaction that queued mail has committed.
    func mailQueued() {
        let worker = outboxWorker
        Task { await worker.wake() }
    }

    /// The absolute URL of `path` on this service.
    func url(_ path: String) -> String { config.baseURL + path }
}
