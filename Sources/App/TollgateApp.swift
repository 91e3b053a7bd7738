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

/// The whole service: `Services` (the database, the use cases, the workers) with the routes, the
/// pages and the HTTP server on top. `run()` serves until a termination signal (or
/// cancellation) and then drains every part; `start()` / `shutdown()` do the same in two steps
/// for tests and tools. What `Services` holds reads through (`app.database`, `app.reconcile`).
@dynamicMemberLookup
public final class TollgateApp: Sendable {
    /// Everything but the server.
    public let services: Services
    public let responder: AppResponder
    public let server: HTTPServer
    public let metrics: Metrics
    public let pages: Pages
    private let logger: Logger
    /// The running service group, between `start()` and `shutdown()`.
    private let running = Mutex<Task<Void, any Error>?>(nil)

    /// What `services` holds, read through.
    public subscript<Value>(dynamicMember keyPath: KeyPath<Services, Value>) -> Value { services[keyPath: keyPath] }

    /// - Parameter connectionPriority: the priority of the server's connection tasks; nil, the
    ///   default, in service. A test whose only socket client is the app's own Stripe client,
    ///   calling the simulator on this listener, raises it as the tests' fake hosts do
    ///   (`HTTPServerConfiguration.connectionPriority`).
    /// - Throws: what `Services.init` throws, and a static-file error; each stops start-up with a
    ///   message naming the cause.
    /// The other parameters are `Services.init`'s.
    public init(
        config: TollgateConfig, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }, payLaterDelay: Duration = .seconds(5),
        eventDelivery: EventDeliveryConfiguration = EventDeliveryConfiguration(),
        retention: RetentionWorker.Configuration = RetentionWorker.Configuration(), reconcileLimits: ReconcileLimits = ReconcileLimits(),
        connectionPriority: TaskPriority? = nil
    ) throws {
        var config = config
        config.paths = try ResourceDirectories.resolve(config.paths)
        self.logger = logger
        // Static files load before the database opens, so a broken public directory stops start-up first.
        let staticFiles = try StaticFiles(directory: config.paths.publicDir)
        let connectionGauge = ServerGauge()
        let listen = config.listen
        let services = try Services(
            config: config, logger: logger, now: now, serviceURL: { listen.localURL(port: connectionGauge.port()) }, payLaterDelay: payLaterDelay,
            eventDelivery: eventDelivery, retention: retention, reconcileLimits: reconcileLimits)
        self.services = services
        let pages = Pages(templates: services.templates, appName: config.app.name, baseURL: config.baseURL)
        self.pages = pages
        let metrics = Metrics()
        self.metrics = metrics
        let database = services.database
        let operations = Site.Operations(
            metrics: metrics, checkWritable: { try await database.checkWritable() }, database: {
                DatabaseFigures(errors: database.errorCount, writeLatency: database.writeLatency, walBytes: database.walBytes)
            },
            openConnections: { connectionGauge.read() }, outbox: services.outbox, eventStats: services.eventWorker.stats,
            retentionStats: services.retentionWorker.stats, reconcileStats: services.reconcile.stats)
        var demoRoutes = RouteGroup()
        if let simulator = services.stripeSimulator {
            DemoRoutes(simulator: simulator) { values, status, locale, request in
                try pages.render("demo_checkout", language: pages.language(for: request, kept: locale), status: status, values)
            }.add(to: &demoRoutes)
        }
        if config.console.enabled {
            ConsoleRoutes(settings: WebSettings(config), pages: pages, useCases: services.console, now: now).add(to: &demoRoutes)
        }
        let site = Site(
            settings: WebSettings(config), pages: pages, staticFiles: staticFiles, useCases: services.useCases, operations: operations,
            extraRoutes: demoRoutes, now: now)
        responder = site.responder
        var serverConfiguration = TollgateApp.serverConfiguration(config)
        serverConfiguration.connectionPriority = connectionPriority
        server = HTTPServer(configuration: serverConfiguration, responder: responder, logger: logger)
        connectionGauge.bind(server)
    }

    /// The long-running parts, started and stopped together.
    private var serviceGroup: ServiceGroup {
        ServiceGroup(
            services: [server, services.outboxWorker, services.eventWorker, services.retentionWorker, services.reconcileWorker, services.linkOutWorker,
                services.reminderWorker, services.consumptionWorker], logger: logger)
    }

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
        try await serviceGroup.run(stoppingOn: [SIGTERM, SIGINT])
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
        let config = services.config
        logger.info("listening", [("address", .string("\(config.listen.host):\(server.port)")), ("base_url", .string(config.baseURL)), ("demo", .bool(config.isDemo))])
    }

    private func closeDatabase() {
        services.database.close()
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
