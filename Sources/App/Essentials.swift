import Configuration
import Domain
import Foundation
import Integrations
import Logging
import Mail
import Storage
import Templating
import UseCases

/// What every command needs, built once: the configuration (its directories resolved), the
/// templates (loaded when first used: a command that renders and mails nothing never reads
/// them), the database (migrated, its sealed rows' keys checked), the domain's secrets, the mail
/// queue and the configured store clients. Use cases are made from it on demand
/// (`UseCaseFactory`); the workers that run are made only by `serve` (`Workers`).
public final class Essentials: Sendable {
    public let config: TollgateConfig
    public let logger: Logger
    public let now: @Sendable () -> Date
    private let loadedTemplates: Lazy<LocalizedTemplates>
    public let database: Database
    public let secrets: DomainSecrets
    /// Queues mail in a caller's transaction; wakes the outbox worker when one runs here.
    public let mail: MailQueue
    /// The store clients that are configured.
    public let stores: StoreClients
    /// Wakes the workers that run in this process (none but in `serve`).
    public let wakes: WorkerWakes

    /// - Parameter templates: templates already loaded from `config`'s directories (the tests
    ///   build hundreds of apps from one load); nil, the default, loads them when first used.
    /// - Throws: `StartupError` (the templates' or static files' directory not found, with the
    ///   absolute paths tried, before the database is opened; an unreadable store key or
    ///   certificate, naming its key), `StorageError` (database); each stops start-up with a
    ///   message naming the cause.
    public init(
        config: TollgateConfig, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }, templates: LocalizedTemplates? = nil
    ) throws {
        var config = config
        config.paths = try ResourceDirectories.resolve(config.paths)
        self.config = config
        self.logger = logger
        self.now = now
        let (paths, locales) = (config.paths, config.locales)
        loadedTemplates = Lazy {
            if let templates { return templates }
            let templates = try LocalizedTemplates(
                directory: paths.templatesDir, overrides: locales.dir, defaultLanguage: locales.defaultLanguage)
            for (language, keys) in templates.missingKeys.sorted(by: { $0.key < $1.key }) {
                // Logged once, when loaded: the libraries are built with English in these places.
                logger.warning("locale_keys_missing", [("language", .string(language)), ("keys", .string(keys.joined(separator: ",")))])
            }
            return templates
        }
        let database = try DatabaseOpener.open(config.database, logger: logger)
        self.database = database
        let applied = try TollgateReleases.migrator.migrate(database)
        if !applied.isEmpty {
            logger.info("migrated", [("applied", .string(applied.joined(separator: ",")))])
        }
        secrets = try DomainSecrets(secretKeys: config.secretKeyList)
        try KeyListCheck.check(database, secrets: secrets)
        let wakes = WorkerWakes()
        self.wakes = wakes
        mail = MailQueue(
            cipher: OutboxCipher(secrets: secrets), messageIDDomain: MailSetup.host(of: config.baseURL) ?? "tollgate.localhost", now: now,
            wake: wakes.waker(.mail))
        stores = try StoreClients(config: config, now: now)
    }

    /// Templates (pages and mail), loaded once, when first asked for.
    /// - Throws: `TemplateError` (a template with file:line).
    public var templates: LocalizedTemplates { get throws { try loadedTemplates.value } }

    /// The mail outbox's worker: `serve` runs it; a command that mails calls its `runOnce()`.
    /// - Throws: a mail-setup error (the sender or the transport), `TemplateError`.
    public func outboxWorker() throws -> OutboxWorker {
        let composer = MailComposer(templates: try templates, from: try MailSetup.sender(config.mail.from), appName: config.app.name)
        var configuration = OutboxWorkerConfiguration(cipher: OutboxCipher(secrets: secrets))
        // Reminders leave only while their purchase still waits for its buyer.
        configuration.sendCheck = ReminderGate(database: database, now: now)
        return OutboxWorker(
            database: database, transport: try MailSetup.transport(config, logger: logger), composer: composer,
            configuration: configuration, logger: logger, now: now)
    }
}
