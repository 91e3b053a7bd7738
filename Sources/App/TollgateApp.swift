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

/// The whole service: `Essentials` (configuration, database, templates, mail queue, store
/// clients), the use cases made from them (`UseCaseFactory`), the routes and pages on top, and
/// the workers (`Workers`) and HTTP server that run. `run()` serves until a termination signal
/// (or cancellation) and then stops in the reverse order of the start: the server stops taking
/// requests and drains, the workers finish their claims, and the database closes last;
/// `start()` / `shutdown()` do the same in two steps for tests and tools.
public final class TollgateApp: Sendable {
    public let essentials: Essentials
    /// The use cases, made from `essentials`.
    public let useCases: UseCaseFactory
    /// The process's reconciler (the admin route, the worker and `/metrics` share its figures).
    public let reconcile: ReconcilePurchases
    /// Demo mode's Stripe (nil unless `stripe.simulator` is on).
    public let stripeSimulator: StripeSimulator?
    public let workers: Workers
    public let responder: AppResponder
    public let server: HTTPServer
    public let metrics: Metrics
    public let pages: Pages
    private let logger: Logger
    /// The running service group, between `start()` and `shutdown()`.
    private let running = Mutex<Task<Void, any Error>?>(nil)

    /// This build's version (`tollgate --version`, `tollgate_build_info`).
    public static var version: String { BuildInfo.version }

    /// The service's database (closed last, by `run()` or `shutdown()`).
    public var database: Database { essentials.database }

    /// - Parameters:
    ///   - payLaterDelay: how long the Stripe simulator's "pay later" takes to clear.
    ///   - eventDelivery: how events are delivered (tests shorten the backoff).
    ///   - retention: how retention batches and paces its passes.
    ///   - reconcileLimits: how much a reconcile run reads (tests and benchmarks shrink or grow them).
    ///   - connectionPriority: the priority of the server's connection tasks; nil, the
    ///     default, in service. A test whose only socket client is the app's own Stripe client,
    ///     calling the simulator on this listener, raises it as the tests' fake hosts do
    ///     (`HTTPServerConfiguration.connectionPriority`).
    ///   - templates: templates already loaded from `config`'s directories (`Essentials`); nil
    ///     loads them.
    /// - Throws: what `Essentials`, `UseCaseFactory` and `Workers` throw, and a static-file error;
    ///   each stops start-up with a message naming the cause.
    public init(
        config: TollgateConfig, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }, payLaterDelay: Duration = .seconds(5),
        eventDelivery: EventDeliveryConfiguration = EventDeliveryConfiguration(),
        retention: RetentionWorker.Configuration = RetentionWorker.Configuration(), reconcileLimits: ReconcileLimits = ReconcileLimits(),
        connectionPriority: TaskPriority? = nil, templates: LocalizedTemplates? = nil
    ) throws {
        var config = config
        config.paths = try ResourceDirectories.resolve(config.paths)
        self.logger = logger
        // Static files load before the database opens, so a broken public directory stops start-up first.
        let staticFiles = try StaticFiles(directory: config.paths.publicDir)
        let connectionGauge = ServerGauge()
        let listen = config.listen
        let serviceURL: @Sendable () -> String = { listen.localURL(port: connectionGauge.port()) }
        let essentials = try Essentials(config: config, logger: logger, now: now, templates: templates)
        self.essentials = essentials
        let templates = try essentials.templates
        let useCases = try UseCaseFactory(essentials, serviceURL: serviceURL, eventDelivery: eventDelivery, reconcileLimits: reconcileLimits)
        self.useCases = useCases
        let simulator = try StripeSetup.simulator(config, serviceURL: serviceURL, logger: logger, now: now, payLaterDelay: payLaterDelay)
        stripeSimulator = simulator
        let reconcile = try useCases.reconcile()
        self.reconcile = reconcile
        let workers = try Workers(useCases: useCases, reconcile: reconcile, eventDelivery: eventDelivery, retention: retention)
        self.workers = workers
        let pages = Pages(templates: templates, appName: config.app.name, baseURL: config.baseURL)
        self.pages = pages
        let metrics = Metrics()
        self.metrics = metrics
        let database = essentials.database
        let operations = Site.Operations(
            metrics: metrics, checkWritable: { try await database.checkWritable() },
            database: {
                DatabaseFigures(errors: database.errorCount, writeLatency: database.writeLatency, walBytes: database.walBytes)
            },
            openConnections: { connectionGauge.read() }, outbox: useCases.outbox, eventStats: workers.events.stats,
            retentionStats: workers.retention.stats, reconcileStats: reconcile.stats)
        let cases = try Self.siteUseCases(useCases, reconcile: reconcile)
        var demoRoutes = RouteGroup()
        if let simulator {
            DemoRoutes(simulator: simulator) { values, status, locale, request in
                try pages.render("demo_checkout", language: pages.language(for: request, kept: locale), status: status, values)
            }.add(to: &demoRoutes)
        }
        if config.console.enabled {
            let console = ConsoleRoutes.UseCaseSet(
                signIn: useCases.consoleSignIn, operators: useCases.consoleOperators, queries: try useCases.consoleQueries,
                actions: useCases.consoleActions, operatorActions: cases.operatorActions, deleteAccount: cases.deleteAccount,
                exportAccount: cases.exportAccount, manualEntitlements: useCases.manualEntitlements, formTokens: cases.formTokens)
            ConsoleRoutes(settings: WebSettings(config), pages: pages, useCases: console, now: now).add(to: &demoRoutes)
        }
        let site = Site(
            settings: WebSettings(config), pages: pages, staticFiles: staticFiles, useCases: cases, operations: operations,
            extraRoutes: demoRoutes, now: now)
        responder = site.responder
        var serverConfiguration = TollgateApp.serverConfiguration(config)
        serverConfiguration.connectionPriority = connectionPriority
        server = HTTPServer(configuration: serverConfiguration, responder: responder, logger: logger)
        connectionGauge.bind(server)
    }

    /// The use cases the routes call, each made once.
    static func siteUseCases(_ useCases: UseCaseFactory, reconcile: ReconcilePurchases) throws -> Site.UseCaseSet {
        var cases = Site.UseCaseSet(
            redeem: useCases.redeemCode, lookUpCode: useCases.lookUpCode, resendCodes: useCases.resendCodes,
            listEntitlements: useCases.listEntitlements, checkoutStatus: useCases.checkoutStatus, startCheckout: try useCases.startCheckout,
            completeCheckout: try useCases.completeCheckout, applyStripeEvent: try useCases.applyStripeEvent,
            applyAppleNotification: try useCases.applyAppleNotification, applyGoogleNotification: try useCases.applyGoogleNotification,
            recordReceipt: try useCases.recordReceipt, claimStorePurchase: try useCases.claimStorePurchase,
            claimGoNativeReceipt: try useCases.claimGoNativeReceipt, setAccountEmail: useCases.setAccountEmail,
            confirmEmail: useCases.confirmEmail, setPassword: useCases.setPassword, signIn: useCases.signIn,
            deleteAccount: useCases.deleteAccount, exportAccount: useCases.exportAccount, webSignIn: useCases.webSignIn,
            webAccount: try useCases.webAccount, formTokens: useCases.formTokens, operatorActions: useCases.operatorActions,
            idempotentReplies: useCases.idempotentReplies, checkoutEligibility: useCases.checkoutEligibility,
            reconcile: reconcile.providers.isEmpty ? nil : reconcile)
        cases.funnel = useCases.funnel
        cases.unsubscribeReminders = useCases.unsubscribeReminders
        cases.duplicates = useCases.duplicates
        return cases
    }

    /// The long-running parts in start order: the workers, then the server. They stop in the
    /// reverse order: the server first (no new requests, those in flight drained), then each
    /// worker after its current claim; the database closes after them all.
    private var serviceGroup: ServiceGroup {
        ServiceGroup(services: workers.all + [server], logger: logger)
    }

    /// Serves until SIGTERM or SIGINT (or until the task is cancelled), then stops accepting, lets
    /// in-flight requests finish (up to 10 s), lets each worker finish what it claimed (a mail
    /// delivery, event deliveries, a report), and closes the database.
    /// - Parameter listening: called with the bound port once connections are accepted.
    /// - Throws: `HTTPServerError` when the address cannot be bound.
    public func run(listening: (Int) -> Void = { _ in }) async throws {
        // Caught before the port accepts: a SIGTERM as soon as it does is a graceful stop.
        let signals = TerminationSignals([SIGTERM, SIGINT])
        try server.start()
        announce()
        listening(server.port)
        defer { closeDatabase() }
        try await serviceGroup.run(stoppingOn: signals)
    }

    /// Binds the listening socket and runs the service group in the background (tests, tools).
    /// - Throws: `HTTPServerError` when the address cannot be bound.
    public func start() throws {
        try server.start()
        announce()
        let group = serviceGroup
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
        let config = essentials.config
        logger.info(
            "listening",
            [("address", .string("\(config.listen.host):\(server.port)")), ("base_url", .string(config.baseURL)), ("demo", .bool(config.isDemo))])
    }

    private func closeDatabase() {
        essentials.database.close()
        logger.info("stopped")
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
