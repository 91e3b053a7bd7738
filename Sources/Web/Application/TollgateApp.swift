import Configuration
import Domain
import Foundation
import HTTPServer
import Logging
import Mail
import Storage
import Synchronization
import Templating

/// The whole service assembled from its configuration: database (migrated), templates and
/// static files (loaded once), the mail outbox worker, routes, and the HTTP server.
/// `start()` opens the socket and starts the worker; `shutdown()` drains both.
public final class TollgateApp: Sendable {
    public let config: TollgateConfig
    public let database: Database
    public let responder: AppResponder
    public let server: HTTPServer
    public let metrics: Metrics
    public let services: AppServices
    private let logger: Logger
    private let workerTask = Mutex<Task<Void, Never>?>(nil)

    /// Every migration of the service, in order.
    public static let migrations: [Migration] = MailMigrations.all + DomainMigrations.all

    /// - Throws: `StorageError` (database), `TemplateError` (a template with file:line),
    ///   `StoreConfigurationError` (an unreadable store key or certificate, naming its key),
    ///   a static-file or mail-setup error; each stops start-up with a message naming the cause.
    public init(config: TollgateConfig, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }) throws {
        self.config = config
        self.logger = logger
        database = try Database(path: config.database.path, logger: logger)
        let applied = try Migrator(migrations: Self.migrations).migrate(database)
        if !applied.isEmpty {
            logger.info("migrated", [("applied", .string(applied.joined(separator: ",")))])
        }
        let templates = try TemplateLibrary(directory: config.paths.templatesDir)
        let staticFiles = try StaticFiles(directory: config.paths.publicDir)
        let pages = Pages(templates: templates, appName: config.app.name, baseURL: config.baseURL)
        let composer = MailComposer(templates: templates, from: try MailSetup.sender(config.mail.from), appName: config.app.name)
        let secrets = try DomainSecrets(secretKey: config.secretKey)
        let mailCipher = try OutboxCipher(key: secrets.mailParameterKey)
        let worker = OutboxWorker(
            database: database, transport: try MailSetup.transport(config, logger: logger), composer: composer,
            configuration: OutboxWorkerConfiguration(cipher: mailCipher), logger: logger, now: now)
        services = try AppServices(
            config: config, database: database, logger: logger, pages: pages, secrets: secrets, mailCipher: mailCipher,
            outboxWorker: worker, now: now)
        let metrics = Metrics()
        self.metrics = metrics

        let connectionGauge = ServerGauge()
        let admin = AdminAuthenticator(tokenHashes: config.admin.tokensSHA256)
        var router = Router()
        OperationsRoutes(database: database, metrics: metrics, openConnections: { connectionGauge.read() }).register(on: &router)
        PageRoutes(pages: pages, staticFiles: staticFiles).register(on: &router)
        AdminOutboxRoutes(services: services, admin: admin).register(on: &router)
        AdminCodeRoutes(services: services, admin: admin).register(on: &router)
        AdminAccountRoutes(services: services, admin: admin).register(on: &router)
        WellKnownRoutes(app: config.app).register(on: &router)
        let appAuth = AppAuthentication(apiKeys: APIKeyCheck(publicKeys: config.apiKeys.publicKeys))
        RedemptionAPIRoutes(services: services, auth: appAuth).register(on: &router)
        RedeemPageRoutes(services: services).register(on: &router)
        CheckoutRoutes(services: services).register(on: &router)
        SignInRoutes(services: services, auth: appAuth).register(on: &router)
        EmailRoutes(services: services, auth: appAuth).register(on: &router)
        PasswordRoutes(services: services).register(on: &router)
        IAPAccountRoutes(services: services, auth: appAuth).register(on: &router)
        StripeWebhookRoute(services: services).register(on: &router)
        AppleWebhookRoute(services: services).register(on: &router)
        GoogleWebhookRoute(services: services).register(on: &router)
        ReceiptsRoute(services: services).register(on: &router)
        StoreAPIRoutes(services: services, auth: appAuth).register(on: &router)
        responder = AppResponder(router: router, metrics: metrics, pages: pages)
        server = HTTPServer(configuration: TollgateApp.serverConfiguration(config), responder: responder, logger: logger)
        connectionGauge.bind(server)
    }

    /// Binds the listening socket, starts serving and starts delivering mail.
    /// - Throws: `HTTPServerError` when the address cannot be bound.
    public func start() throws {
        try server.start()
        let worker = services.outboxWorker
        workerTask.withLock { $0 = Task { await worker.run() } }
        logger.info("listening", [("address", .string("\(config.listen.host):\(server.port)")), ("base_url", .string(config.baseURL)), ("demo", .bool(config.isDemo))])
    }

    /// Stops accepting, lets in-flight requests finish (up to 10 s), stops the mail worker
    /// (a delivery in progress completes), closes the database.
    public func shutdown() async {
        logger.info("shutting_down")
        await server.shutdown()
        await services.outboxWorker.stop()
        if let task = workerTask.withLock({ $0 }) { await task.value }
        database.close()
        logger.info("stopped")
    }

    static func serverConfiguration(_ config: TollgateConfig) -> HTTPServerConfiguration {
        HTTPServerConfiguration(
            host: config.listen.host,
            port: config.listen.port,
            maxBodyBytes: config.http.maxBodyBytes,
            headerReadTimeout: .seconds(config.http.headerReadTimeoutSeconds),
            keepAliveIdleTimeout: .seconds(config.http.keepAliveTimeoutSeconds),
            maxConnections: config.http.maxConnections
        )
    }
}

/// Lets `/metrics` read the server's connection count although the server is built after
/// the routes that report it.
final class ServerGauge: Sendable {
    private let server = Mutex<HTTPServer?>(nil)

    func bind(_ server: HTTPServer) { self.server.withLock { $0 = server } }

    func read() -> Int { server.withLock { $0?.openConnections ?? 0 } }
}
