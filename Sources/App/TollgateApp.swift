import Configuration
import Domain
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HTTPCore
import HTTPRouting
import Integrations
import Lifecycle
import Logging
import Mail
import Storage
import StripeSimulator
import Synchronization
import Templating
import UseCases
import Web

/// The whole service assembled from its configuration: the database (migrated), templates and
/// static files (loaded once), the use cases with exactly what each uses, the mail outbox
/// worker, the routes and the HTTP server. This is the one place that knows every part.
/// `run()` serves until a termination signal (or cancellation) and then drains every part;
/// `start()` / `shutdown()` do the same in two steps for tests and tools.
public final class TollgateApp: Sendable {
    public let config: TollgateConfig
    public let database: Database
    public let responder: AppResponder
    public let server: HTTPServer
    public let metrics: Metrics
    public let pages: Pages
    public let secrets: DomainSecrets
    public let outboxWorker: OutboxWorker
    /// Codes app users redeemed again lately (shared with `RedeemCode`).
    public let recentRepeats: RecentRepeats
    /// The store clients that are configured.
    public let stores: StoreClients
    /// Queues mail in a caller's transaction (tests and the CLI use it too).
    public let mail: MailQueue
    /// Verifies purchases with their stores (shared by the store use cases).
    public let storeVerifier: StorePurchaseVerifier
    /// What operators can do (the admin API and `tollgate admin`).
    public let operatorActions: OperatorActions
    /// Demo mode's Stripe (nil unless `stripe.simulator` is on).
    public let stripeSimulator: StripeSimulator?
    /// Queues events for the app's backend in a caller's transaction (`events.endpoints`).
    public let events: EventQueue
    /// The configured event endpoints (`tollgate events test`).
    public let eventEndpoints: [EventEndpoint]
    /// Delivers queued events to the endpoints.
    public let eventWorker: EventDeliveryWorker
    /// Deletes expired and finished rows in the background (`retention.*`).
    public let retentionWorker: RetentionWorker
    /// Finds and applies what notifications missed (`reconcile.*`, `tollgate reconcile`).
    public let reconcile: ReconcilePurchases
    /// Runs `reconcile` every `reconcile.interval_seconds`.
    public let reconcileWorker: ReconcileWorker
    private let logger: Logger
    /// The running service group, between `start()` and `shutdown()`.
    private let running = Mutex<Task<Void, any Error>?>(nil)

    /// Every migration of the service, in order (`TollgateMigrations`).
    public static var migrations: [Migration] { TollgateMigrations.all }

    /// - Parameter payLaterDelay: how long the Stripe simulator's "pay later" takes to clear.
    /// - Throws: `ResourceDirectories.Missing` (templates or static files not found, with the
    ///   absolute paths tried, before the database is opened), `StorageError` (database),
    ///   `TemplateError` (a template with file:line), `StoreConfigurationError` (an unreadable
    ///   store key or certificate, naming its key), a static-file or mail-setup error; each stops
    ///   start-up with a message naming the cause.
    /// - Parameter eventDelivery: how events are delivered (tests shorten the backoff).
    /// - Parameter retention: how retention batches and paces its passes.
    /// - Parameter reconcileLimits: how much a reconcile run reads (tests and benchmarks shrink or grow them).
    /// - Parameter connectionPriority: the priority of the server's connection tasks; nil, the
    ///   default, in service. A test whose only socket client is the app's own Stripe client,
    ///   calling the simulator on this listener, raises it as the tests' fake hosts do
    ///   (`HTTPServerConfiguration.connectionPriority`).
    public init(
        config: TollgateConfig, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }, payLaterDelay: Duration = .seconds(5),
        eventDelivery: EventDeliveryConfiguration = EventDeliveryConfiguration(),
        retention: RetentionWorker.Configuration = RetentionWorker.Configuration(), reconcileLimits: ReconcileLimits = ReconcileLimits(),
        connectionPriority: TaskPriority? = nil
    ) throws {
        var config = config
        config.paths = try ResourceDirectories.resolve(config.paths)
        self.config = config
        self.logger = logger
        let templates = try TemplateLibrary(directory: config.paths.templatesDir)
        let staticFiles = try StaticFiles(directory: config.paths.publicDir)
        let database = try DatabaseOpener.open(config.database, logger: logger)
        self.database = database
        let applied = try Migrator(migrations: Self.migrations).migrate(database)
        if !applied.isEmpty {
            logger.info("migrated", [("applied", .string(applied.joined(separator: ",")))])
        }
        pages = Pages(templates: templates, appName: config.app.name, baseURL: config.baseURL)
        let composer = MailComposer(templates: templates, from: try MailSetup.sender(config.mail.from), appName: config.app.name)
        secrets = try DomainSecrets(secretKey: config.secretKey)
        let mailCipher = try OutboxCipher(key: secrets.mailParameterKey)
        let worker = OutboxWorker(
            database: database, transport: try MailSetup.transport(config, logger: logger), composer: composer,
            configuration: OutboxWorkerConfiguration(cipher: mailCipher), logger: logger, now: now)
        outboxWorker = worker
        mail = MailQueue(
            cipher: mailCipher, messageIDDomain: MailSetup.host(of: config.baseURL) ?? "tollgate.localhost", now: now,
            wake: { Task { await worker.wake() } })
        stores = try StoreClients(config: config, now: now)
        recentRepeats = RecentRepeats()

        let vault = try CodeVault(secrets: secrets)
        let catalog = EntitlementCatalog(config.entitlements)
        let vouching = StripeVouching(prices: Set(config.plans.values.map(\.priceID)).union(config.entitlements.values.joined()))
        let endpoints = try config.events.endpoints.map { try EventEndpoint(url: $0.url, secret: $0.secret, types: $0.types) }
        eventEndpoints = endpoints
        let eventWorker = EventDeliveryWorker(
            database: database, endpoints: endpoints,
            http: SocketHTTPClient(service: "events", maxResponseBytes: eventDelivery.maxResponseBytes),
            configuration: eventDelivery, logger: logger, now: now)
        self.eventWorker = eventWorker
        let events = EventQueue(
            subscriptions: endpoints.map(\.subscription), catalog: catalog, retryWindow: eventDelivery.retryWindow, wake: { eventWorker.wake() })
        self.events = events
        let policy = RedemptionPolicy(
            onOtherUser: OtherUserPolicy(rawValue: config.redemption.onOtherUser.rawValue) ?? .switch,
            maxDevices: config.redemption.maxDevices,
            codeTTL: TimeInterval(config.redemption.codeTTLSeconds),
            resendInterval: TimeInterval(config.redemption.resendIntervalSeconds))
        let redemption = RedemptionService(policy: policy, vault: vault, secrets: secrets, events: events)
        let links = Links(baseURL: config.baseURL, appScheme: config.app.scheme)
        let products = ProductNames(entitlements: config.entitlements, planPrices: config.plans.mapValues(\.priceID))
        let codeMail = CodeMail(mail: mail, links: links, products: products)
        let authMail = AuthMail(mail: mail, links: links, now: now)
        let connectionGauge = ServerGauge()
        let listen = config.listen
        let serviceURL: @Sendable () -> String = { listen.localURL(port: connectionGauge.port()) }
        let simulator = try Self.simulator(config, serviceURL: serviceURL, logger: logger, now: now, payLaterDelay: payLaterDelay)
        stripeSimulator = simulator
        let stripe = Self.stripeClient(config, simulator: simulator, serviceURL: serviceURL)
        let durations = ProductDurations(days: config.productsDurationDays)
        let verifier = StorePurchaseVerifier(stores: stores, stripe: stripe, database: database, now: now, durations: durations, events: events)
        storeVerifier = verifier
        let completeCheckout = CompleteCheckout(
            database: database, stripe: stripe, completion: CheckoutCompletion(codeTTL: policy.codeTTL, vault: vault, secrets: secrets, events: events),
            codeMail: codeMail, vouching: vouching)
        operatorActions = OperatorActions(database: database, redemption: redemption, codeMail: codeMail, events: events)
        let applyStripeEvent = stripe.map {
            ApplyStripeEvent(database: database, stripe: $0, completeCheckout: completeCheckout, vouching: vouching, logger: logger, events: events)
        }
        let applyAppleNotification = ApplyAppleNotification(
            verifier: stores.appleVerifier, database: database, logger: logger, durations: durations, events: events)
        let applyGoogleNotification = ApplyGoogleNotification(
            rtdnToken: config.google.rtdnToken, packageName: config.app.android.packageName, verifier: verifier, database: database,
            logger: logger, now: now, events: events)
        let reconcile = ReconcilePurchases(
            database: database, stripe: stripe, applyStripeEvent: applyStripeEvent, verifier: verifier,
            applyAppleNotification: applyAppleNotification, applyGoogleNotification: applyGoogleNotification, events: events,
            limits: reconcileLimits, logger: logger, now: now)
        self.reconcile = reconcile
        reconcileWorker = ReconcileWorker(reconcile: reconcile, interval: .seconds(config.reconcile.intervalSeconds))
        let useCases = Site.UseCaseSet(
            redeem: RedeemCode(
                database: database, redemption: redemption, recentRepeats: recentRepeats, catalog: catalog, codeMail: codeMail, logger: logger),
            lookUpCode: LookUpCode(database: database, vault: vault),
            resendCodes: ResendCodes(database: database, redemption: redemption, codeMail: codeMail),
            listEntitlements: ListEntitlements(database: database, catalog: catalog),
            checkoutStatus: CheckoutStatus(database: database, catalog: catalog, vault: vault),
            startCheckout: StartCheckout(
                database: database, stripe: stripe, links: links, allowPromotionCodes: config.stripe.allowPromotionCodes, logger: logger),
            completeCheckout: completeCheckout,
            applyStripeEvent: applyStripeEvent, applyAppleNotification: applyAppleNotification,
            applyGoogleNotification: applyGoogleNotification,
            recordReceipt: RecordReceipt(
                verifier: verifier, policy: policy.onOtherUser, secrets: secrets, catalog: catalog, vouching: vouching, events: events),
            claimStorePurchase: ClaimStorePurchase(
                verifier: verifier, database: database, policy: policy.onOtherUser, secrets: secrets, authMail: authMail, mail: mail,
                links: links, events: events),
            claimGoNativeReceipt: ClaimGoNativeReceipt(
                verifier: verifier, database: database, policy: policy.onOtherUser, catalog: catalog, events: events),
            setAccountEmail: SetAccountEmail(database: database, authMail: authMail, mail: mail),
            confirmEmail: ConfirmEmail(database: database, authMail: authMail, mail: mail, events: events),
            setPassword: SetPassword(database: database),
            signIn: SignIn(database: database, authMail: authMail, mail: mail, logger: logger),
            deleteAccount: DeleteAccount(database: database, events: events),
            exportAccount: ExportAccount(database: database, catalog: catalog),
            webSignIn: WebSignIn(database: database, mail: mail, links: links, authMail: authMail, secrets: secrets, logger: logger),
            webAccount: WebAccount(
                database: database, catalog: catalog, redemption: redemption, codeMail: codeMail, stripe: stripe, links: links, logger: logger),
            formTokens: FormTokens(secrets: secrets),
            operatorActions: operatorActions,
            idempotentReplies: IdempotentReplies(database: database, secrets: secrets), reconcile: reconcile.providers.isEmpty ? nil : reconcile)

        let retentionWorker = RetentionWorker(
            database: database, policy: Self.retentionPolicy(config), configuration: retention, logger: logger, now: now)
        self.retentionWorker = retentionWorker
        let metrics = Metrics()
        self.metrics = metrics
        let operations = Site.Operations(
            metrics: metrics, checkWritable: { try await database.checkWritable() }, database: {
                DatabaseFigures(errors: database.errorCount, writeLatency: database.writeLatency, walBytes: database.walBytes)
            },
            openConnections: { connectionGauge.read() }, outbox: OutboxStore(database: database), eventStats: eventWorker.stats,
            retentionStats: retentionWorker.stats, reconcileStats: reconcile.stats)
        let site = Site(
            config: config, pages: pages, staticFiles: staticFiles, useCases: useCases, operations: operations,
            preferTransactionLookup: stores.appStoreAPI != nil, simulator: simulator, now: now)
        responder = site.responder
        var serverConfiguration = TollgateApp.serverConfiguration(config)
        serverConfiguration.connectionPriority = connectionPriority
        server = HTTPServer(configuration: serverConfiguration, responder: responder, logger: logger)
        connectionGauge.bind(server)
    }

    /// The long-running parts, started and stopped together.
    private var services: ServiceGroup { ServiceGroup(services: [server, outboxWorker, eventWorker, retentionWorker, reconcileWorker], logger: logger) }

    /// Serves until SIGTERM or SIGINT (or until the task is cancelled), then stops accepting, lets
    /// in-flight requests finish (up to 10 s), lets a mail delivery and event deliveries in progress complete, and
    /// closes the database.
    /// - Parameter listening: called with the bound port once connections are accepted.
    /// - Throws: `HTTPServerError` when the address cannot be bound.
    public func run(listening: (Int) -> Void = { _ in }) async throws {
        try server.start()
        announce()
        listening(server.port)
        defer { closeDatabase() }
        try await services.run(stoppingOn: [SIGTERM, SIGINT])
    }

    /// Binds the listening socket and runs the service group in the background (tests, tools).
    /// - Throws: `HTTPServerError` when the address cannot be bound.
    public func start() throws {
        try server.start()
        announce()
        let group = services
        running.withLock { $0 = Task { try await group.run() } }
    }

    /// Stops what `start()` started, as `run()` does on a signal, and closes the database.
    public func shutdown() async {
        logger.info("shutting_down")
        if let task = running.withLock({ $0 }) {
            task.cancel()
            _ = await task.result
        }
        closeDatabase()
    }

    private func announce() {
        logger.info("listening", [("address", .string("\(config.listen.host):\(server.port)")), ("base_url", .string(config.baseURL)), ("demo", .bool(config.isDemo))])
    }

    private func closeDatabase() {
        database.close()
        logger.info("stopped")
    }

    /// Demo mode's Stripe when `stripe.simulator` is on.
    static func simulator(
        _ config: TollgateConfig, serviceURL: @escaping @Sendable () -> String, logger: Logger, now: @escaping @Sendable () -> Date,
        payLaterDelay: Duration
    ) throws -> StripeSimulator? {
        guard config.stripe.simulator else { return nil }
        let keys = try SimulatorKeys(secretKey: config.secretKey, webhookSecret: config.stripe.webhookSecret)
        return StripeSimulator(
            keys: keys, publicBaseURL: config.baseURL, serviceURL: serviceURL, http: URLSessionHTTPClient(service: "stripe-simulator"),
            logger: logger, now: now, payLaterDelay: payLaterDelay)
    }

    /// The real Stripe client: for the configured key and API base, or, in simulator mode, for
    /// the simulator's key and its routes on this very listener.
    static func stripeClient(_ config: TollgateConfig, simulator: StripeSimulator?, serviceURL: @escaping @Sendable () -> String) -> StripeClient? {
        let http = URLSessionHTTPClient(service: "stripe")
        if let simulator {
            return StripeClient(secretKey: simulator.keys.apiKey, apiBase: { serviceURL() + StripeSimulator.apiPath }, http: http)
        }
        return config.stripe.secretKey.map { StripeClient(secretKey: $0, apiBase: config.stripe.apiBase, http: http) }
    }

    /// `retention.*` as the retention worker reads it; throttles live as long as the resend interval.
    static func retentionPolicy(_ config: TollgateConfig) -> Retention.Policy {
        Retention.Policy(
            sessionsDays: config.retention.sessionsDays, idempotencyDays: config.retention.idempotencyDays,
            mailDays: config.retention.mailDays, eventsDays: config.retention.eventsDays,
            webhookIDsDays: config.retention.webhookIDsDays, resendInterval: TimeInterval(config.redemption.resendIntervalSeconds))
    }

    static func serverConfiguration(_ config: TollgateConfig) -> HTTPServerConfiguration {
        HTTPServerConfiguration(
            host: config.listen.host,
            port: config.listen.port,
            maxBodyBytes: config.http.maxBodyBytes,
            headerReadTimeout: .seconds(config.http.headerReadTimeoutSeconds),
            requestTimeout: .seconds(config.http.requestTimeoutSeconds),
            keepAliveIdleTimeout: .seconds(config.http.keepAliveTimeoutSeconds),
            maxConnections: config.http.maxConnections,
            maxConnectionsPerClient: config.http.maxConnectionsPerClient,
            // A trusted proxy is not a client: the cap applies to whom it forwards (API.md).
            clientAddressPolicy: config.http.trustedProxies.isEmpty
                ? nil : ClientAddressResolver(trustedProxies: config.http.trustedProxyNetworks)
        )
    }
}

/// Lets `/metrics` read the server's connection count, and the Stripe simulator its port,
/// although the server is built after the routes that use them.
final class ServerGauge: Sendable {
    private let server = Mutex<HTTPServer?>(nil)

    func bind(_ server: HTTPServer) { self.server.withLock { $0 = server } }

    func read() -> Int { server.withLock { $0?.openConnections ?? 0 } }

    /// The bound port (0 before the server is bound).
    func port() -> Int { server.withLock { $0?.port ?? 0 } }
}
