import Configuration
import Domain
import Foundation
import Integrations
import Logging
import Mail
import Storage
import StripeSimulator
import Templating
import UseCases
import Web

/// Tollgate without its server: the database (migrated), the mail outbox and its worker, the
/// store and Stripe clients, the event queue and its worker, the use cases with exactly what each
/// uses, and the background workers. The CLI and the tools build only this; `TollgateApp` adds
/// the routes and the HTTP server and runs the workers.
public final class Services: Sendable {
    public let config: TollgateConfig
    public let database: Database
    /// Templates (pages and mail), loaded once.
    public let templates: LocalizedTemplates
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
    /// The mail outbox as operators see it.
    public let outbox: ViewOutbox
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
    /// Sends the link-out reports owed to Apple and Google (API.md "Link-out compliance").
    public let linkOutWorker: LinkOutReportWorker
    /// The use cases the routes call.
    public let useCases: Site.UseCaseSet
    /// Queues reminder mails as they fall due (`redemption.reminders`).
    public let reminderWorker: ReminderWorker
    /// Answers Apple's refund requests (`apple.consumption`).
    public let consumptionWorker: ConsumptionInformationWorker
    /// The operators' console's use cases (`/console/`, `tollgate operator`).
    public let console: ConsoleRoutes.UseCaseSet

    /// Every migration of the service, in order (`TollgateMigrations`).
    public static var migrations: [Migration] { TollgateMigrations.all }

    /// - Parameters:
    ///   - serviceURL: where this instance's listener answers, for the Stripe client of demo
    ///     mode (the simulator's API is mounted there); by default the configured `listen` address.
    ///   - payLaterDelay: how long the Stripe simulator's "pay later" takes to clear.
    ///   - eventDelivery: how events are delivered (tests shorten the backoff).
    ///   - retention: how retention batches and paces its passes.
    ///   - reconcileLimits: how much a reconcile run reads (tests and benchmarks shrink or grow them).
    ///   - linkOut: how the link-out report worker paces itself (tests shorten it).
    /// - Throws: `StartupError` (templates or static files not found, with the
    ///   absolute paths tried, before the database is opened), `StorageError` (database),
    ///   `TemplateError` (a template with file:line), also `StartupError` for an unreadable
    ///   store key or certificate, naming its key, a mail-setup error; each stops start-up with
    ///   a message naming the cause.
    public init(
        config: TollgateConfig, logger: Logger, now: @escaping @Sendable () -> Date = { Date() },
        serviceURL: (@Sendable () -> String)? = nil, payLaterDelay: Duration = .seconds(5),
        eventDelivery: EventDeliveryConfiguration = EventDeliveryConfiguration(),
        retention: RetentionWorker.Configuration = RetentionWorker.Configuration(), reconcileLimits: ReconcileLimits = ReconcileLimits(),
        linkOut: LinkOutReportWorker.Configuration = LinkOutReportWorker.Configuration()
    ) throws {
        var config = config
        config.paths = try ResourceDirectories.resolve(config.paths)
        self.config = config
        let templates = try LocalizedTemplates(
            directory: config.paths.templatesDir, overrides: config.locales.dir, defaultLanguage: config.locales.defaultLanguage)
        self.templates = templates
        for (language, keys) in templates.missingKeys.sorted(by: { $0.key < $1.key }) {
            // Logged once, at start-up: the libraries are built with English in these places.
            logger.warning("locale_keys_missing", [("language", .string(language)), ("keys", .string(keys.joined(separator: ",")))])
        }
        let database = try DatabaseOpener.open(config.database, logger: logger)
        self.database = database
        let applied = try Migrator(migrations: Self.migrations).migrate(database)
        if !applied.isEmpty {
            logger.info("migrated", [("applied", .string(applied.joined(separator: ",")))])
        }
        let composer = MailComposer(templates: templates, from: try MailSetup.sender(config.mail.from), appName: config.app.name)
        secrets = try DomainSecrets(secretKeys: config.secretKeyList)
        try KeyListCheck.check(database, secrets: secrets)
        let mailCipher = OutboxCipher(secrets: secrets)
        var outboxConfiguration = OutboxWorkerConfiguration(cipher: mailCipher)
        // Reminders leave only while their purchase still waits for its buyer.
        outboxConfiguration.sendCheck = ReminderGate(database: database, now: now)
        let worker = OutboxWorker(
            database: database, transport: try MailSetup.transport(config, logger: logger), composer: composer,
            configuration: outboxConfiguration, logger: logger, now: now)
        outboxWorker = worker
        mail = MailQueue(
            cipher: mailCipher, messageIDDomain: MailSetup.host(of: config.baseURL) ?? "tollgate.localhost", now: now,
            wake: { Task { await worker.wake() } })
        outbox = ViewOutbox(database: database)
        stores = try StoreClients(config: config, now: now)
        recentRepeats = RecentRepeats()

        let vault = try CodeVault(secrets: secrets)
        let linkOutVault = try LinkOutTokenVault(secrets: secrets)
        let senders = try LinkOutReportSenders.make(config: config, stores: stores)
        LinkOutReportSenders.warnUnconfigured(LinkOutPolicy(config.linkOut), senders: senders, logger: logger)
        let linkOutWorker = LinkOutReportWorker(
            database: database, senders: senders, vault: linkOutVault, configuration: linkOut, logger: logger, now: now)
        self.linkOutWorker = linkOutWorker
        let linkOutQueued: @Sendable () -> Void = { linkOutWorker.wake() }
        let catalog = EntitlementCatalog(config.entitlements)
        let vouching = StripeVouching(prices: Set(config.plans.values.map(\.priceID)).union(config.entitlements.values.joined()))
        let endpoints = try config.events.endpoints.map { try EventEndpoint(url: $0.url, secrets: $0.secrets, types: $0.types) }
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
        let resend = CodeResend(policy: policy, vault: vault, events: events)
        let links = Links(baseURL: config.baseURL, appScheme: config.app.scheme)
        let products = ProductNames(entitlements: config.entitlements, planPrices: config.plans.mapValues(\.priceID))
        let codeMail = CodeMail(mail: mail, links: links, products: products)
        let authMail = AuthMail(mail: mail, links: links, now: now, secrets: secrets, resendInterval: policy.resendInterval)
        let listen = config.listen
        let serviceURL = serviceURL ?? { listen.localURL(port: listen.port) }
        let simulator = try Self.simulator(config, serviceURL: serviceURL, logger: logger, now: now, payLaterDelay: payLaterDelay)
        stripeSimulator = simulator
        let stripe = Self.stripeClient(config, simulator: simulator, serviceURL: serviceURL)
        let durations = ProductDurations(days: config.productsDurationDays)
        let verifier = StorePurchaseVerifier(
            stores: stores, stripe: stripe, database: database, now: now, durations: durations, events: events,
            receiptVault: stores.appStoreAPI == nil && stores.verifyReceipt != nil ? AppStoreReceiptVault(secrets: secrets) : nil)
        storeVerifier = verifier
        let reminders = ReminderSchedule(offsets: config.redemption.effectiveReminders.map(TimeInterval.init))
        reminderWorker = ReminderWorker(
            database: database, schedule: reminders,
            mail: ReminderMail(codeMail: codeMail, vault: vault, codeTTL: policy.codeTTL, events: events), logger: logger, now: now)
        let redirects = CheckoutRedirects(always: config.redemption.mode == .redirect, urls: config.redemption.redirectURLs)
        let completeCheckout = CompleteCheckout(
            database: database, stripe: stripe, codeTTL: policy.codeTTL, vault: vault, secrets: secrets, events: events, reminders: reminders,
            codeMail: codeMail, vouching: vouching, redirects: redirects, linkOutQueued: linkOutQueued)
        operatorActions = OperatorActions(database: database, resend: resend, codeMail: codeMail, events: events)
        let webhookSecrets = simulator.map { [$0.keys.webhookSecret] } ?? config.stripe.webhookSecretList
        let applyStripeEvent = stripe.map {
            ApplyStripeEvent(
                database: database, stripe: $0, webhookSecrets: webhookSecrets, completeCheckout: completeCheckout, vouching: vouching,
                logger: logger, events: events, linkOutQueued: linkOutQueued)
        }
        let consumptionWorker = ConsumptionInformationWorker(
            database: database, client: stores.appStoreAPI, sampleContentProvided: config.apple.consumption.sampleContentProvided,
            logger: logger, now: now)
        self.consumptionWorker = consumptionWorker
        let applyAppleNotification = ApplyAppleNotification(
            verifier: stores.appleVerifier, database: database, logger: logger, durations: durations, events: events,
            linkOutVault: linkOutVault, linkOutQueued: linkOutQueued, answersConsumptionRequests: config.apple.consumption.enabled,
            consumptionQueued: { consumptionWorker.wake() })
        let applyGoogleNotification = ApplyGoogleNotification(
            rtdnToken: config.google.rtdnToken, packageName: config.app.android.packageName, verifier: verifier, database: database,
            logger: logger, now: now, events: events)
        let reconcile = ReconcilePurchases(
            database: database, stripe: stripe, applyStripeEvent: applyStripeEvent, verifier: verifier,
            applyAppleNotification: applyAppleNotification, applyGoogleNotification: applyGoogleNotification, events: events,
            limits: reconcileLimits, logger: logger, now: now)
        self.reconcile = reconcile
        reconcileWorker = ReconcileWorker(reconcile: reconcile, interval: .seconds(config.reconcile.intervalSeconds))
        let plans = config.plans.mapValues { CheckoutPlan(priceID: $0.priceID, isOneTimePayment: $0.mode == .payment) }
        let linkOutPolicy = LinkOutPolicy(config.linkOut)
        let holdings = AlreadyEntitledCheck(
            database: database, catalog: catalog, links: links, androidPackage: config.app.android.packageName,
            refuses: config.checkout.onAlreadyEntitled == .refuse)
        var cases = Site.UseCaseSet(
            redeem: RedeemCode(
                database: database, policy: policy, vault: vault, secrets: secrets, events: events, recentRepeats: recentRepeats,
                catalog: catalog, codeMail: codeMail, logger: logger),
            lookUpCode: LookUpCode(database: database, vault: vault),
            resendCodes: ResendCodes(database: database, resend: resend, codeMail: codeMail),
            listEntitlements: ListEntitlements(database: database, catalog: catalog),
            checkoutStatus: CheckoutStatus(database: database, catalog: catalog, vault: vault),
            startCheckout: StartCheckout(
                database: database, stripe: stripe, links: links, plans: plans, redirects: redirects,
                allowPromotionCodes: config.stripe.allowPromotionCodes,
                linkOut: LinkOutCheckout(
                    policy: linkOutPolicy,
                    app: .init(bundleID: config.app.ios.bundleID, appAppleID: config.app.ios.appAppleID.map(Int64.init))),
                tokenVault: linkOutVault, logger: logger, alreadyEntitled: holdings),
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
                database: database, catalog: catalog, resend: resend, codeMail: codeMail, stripe: stripe, links: links, logger: logger),
            formTokens: FormTokens(secrets: secrets),
            operatorActions: operatorActions,
            idempotentReplies: IdempotentReplies(database: database, secrets: secrets),
            checkoutEligibility: CheckoutEligibility(policy: linkOutPolicy, holdings: holdings, planPrices: plans.values.map(\.priceID).sorted()),
            reconcile: reconcile.providers.isEmpty ? nil : reconcile)
        cases.funnel = FunnelReport(database: database)
        cases.unsubscribeReminders = UnsubscribeReminders(database: database)
        cases.duplicates = DuplicateSubscriptionsReport(database: database)
        useCases = cases
        console = ConsoleRoutes.UseCaseSet(
            signIn: ConsoleSignIn(database: database, secrets: secrets),
            operators: ConsoleOperators(
                database: database, mail: mail, links: links, secrets: secrets, issuer: (config.app.name.isEmpty ? "Tollgate" : config.app.name) + " console"),
            queries: try ConsoleQueries(database: database, secrets: secrets),
            actions: ConsoleActions(database: database, authMail: authMail, mail: mail, secrets: secrets, events: events, linkOutQueued: linkOutQueued),
            operatorActions: operatorActions, deleteAccount: useCases.deleteAccount, exportAccount: useCases.exportAccount,
            formTokens: useCases.formTokens)
        retentionWorker = RetentionWorker(
            database: database, policy: Self.retentionPolicy(config), configuration: retention, logger: logger, now: now)
    }

    /// Demo mode's Stripe when `stripe.simulator` is on.
    static func simulator(
        _ config: TollgateConfig, serviceURL: @escaping @Sendable () -> String, logger: Logger, now: @escaping @Sendable () -> Date,
        payLaterDelay: Duration
    ) throws -> StripeSimulator? {
        guard config.stripe.simulator else { return nil }
        let keys = try SimulatorKeys(secretKey: config.secretKey, webhookSecret: config.stripe.webhookSecretList.first)
        return StripeSimulator(
            keys: keys, publicBaseURL: config.baseURL, serviceURL: serviceURL, http: URLSessionHTTPClient(service: "stripe-simulator"),
            logger: logger, now: now, payLaterDelay: payLaterDelay)
    }

    /// The real Stripe client: for the configured key and API base, or, in simulator mode, for
    /// the simulator's key and its routes on this instance's listener.
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
}
