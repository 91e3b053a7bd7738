import Configuration
import HTTPServer
import Logging
import Storage
import Synchronization
import Templating

/// The whole service assembled from its configuration: database (migrated), templates and
/// static files (loaded once), routes, and the HTTP server. `start()` opens the socket;
/// `shutdown()` drains it.
public final class TollgateApp: Sendable {
    public let config: TollgateConfig
    public let database: Database
    public let responder: AppResponder
    public let server: HTTPServer
    public let metrics: Metrics
    private let logger: Logger

    /// - Throws: `StorageError` (database), `TemplateError` (a template with file:line),
    ///   or a static-file error; each stops start-up with a message that names the file.
    public init(config: TollgateConfig, logger: Logger) throws {
        self.config = config
        self.logger = logger
        database = try Database(path: config.database.path, logger: logger)
        let applied = try Migrator(migrations: TollgateMigrations.all).migrate(database)
        if !applied.isEmpty {
            logger.info("migrated", [("applied", .string(applied.joined(separator: ",")))])
        }
        let templates = try TemplateLibrary(directory: config.paths.templatesDir)
        let staticFiles = try StaticFiles(directory: config.paths.publicDir)
        let pages = Pages(templates: templates, appName: config.app.name, baseURL: config.baseURL)
        let metrics = Metrics()
        self.metrics = metrics

        let connectionGauge = ServerGauge()
        var router = Router()
        OperationsRoutes(database: database, metrics: metrics, openConnections: { connectionGauge.read() }).register(on: &router)
        PageRoutes(pages: pages, staticFiles: staticFiles).register(on: &router)
        responder = AppResponder(router: router, metrics: metrics, pages: pages)
        server = HTTPServer(configuration: TollgateApp.serverConfiguration(config), responder: responder, logger: logger)
        connectionGauge.bind(server)
    }

    /// Binds the listening socket and starts serving.
    /// - Throws: `HTTPServerError` when the address cannot be bound.
    public func start() throws {
        try server.start()
        logger.info("listening", [("address", .string("\(config.listen.host):\(server.port)")), ("base_url", .string(config.baseURL)), ("demo", .bool(config.isDemo))])
    }

    /// Stops accepting, lets in-flight requests finish (up to 10 s), closes the database.
    public func shutdown() async {
        logger.info("shutting_down")
        await server.shutdown()
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
