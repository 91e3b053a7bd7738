import Foundation
import HTTPCore
import HTTPRouting
import Templating
import UseCases

/// The route table: which routes exist, which middleware each group runs behind, and which use
/// case each route calls. Each route group gets only the use cases it calls.
///
/// | group | middleware |
/// | --- | --- |
/// | operations, pages, browser flows, the web account, GoNative's URLs | (global only; per route: limits) |
/// | `/api/v1/*` | `X-Api-Key`, then per route: failure or request limits, `Idempotency-Key` |
/// | `/admin/v1/*` | admin token |
/// | `/receipts` | server key |
/// | `/webhooks/*` | (signatures are checked by the use cases) |
///
/// Every route also runs behind the global chain of `AppResponder` (metrics, request log,
/// security headers, error mapping).
public struct Site: Sendable {
    /// The use cases the routes call.
    public struct UseCaseSet: Sendable {
        public var redeem: RedeemCode
        public var lookUpCode: LookUpCode
        public var resendCodes: ResendCodes
        public var listEntitlements: ListEntitlements
        public var checkoutStatus: CheckoutStatus
        public var startCheckout: StartCheckout
        public var completeCheckout: CompleteCheckout
        public var applyStripeEvent: ApplyStripeEvent?
        public var applyAppleNotification: ApplyAppleNotification
        public var applyGoogleNotification: ApplyGoogleNotification
        public var recordReceipt: RecordReceipt
        public var claimStorePurchase: ClaimStorePurchase
        public var claimGoNativeReceipt: ClaimGoNativeReceipt
        public var setAccountEmail: SetAccountEmail
        public var confirmEmail: ConfirmEmail
        public var setPassword: SetPassword
        public var signIn: SignIn
        public var deleteAccount: DeleteAccount
        public var exportAccount: ExportAccount
        public var webSignIn: WebSignIn
        public var webAccount: WebAccount
        public var formTokens: FormTokens
        public var operatorActions: OperatorActions
        public var idempotentReplies: IdempotentReplies
        /// The reconciler (`GET /admin/v1/reconcile`); nil when no provider is configured.
        public var reconcile: ReconcilePurchases?
        public var checkoutEligibility: CheckoutEligibility
        /// The redemption funnel (`GET /admin/v1/funnel`, `tollgate_time_to_redeem_seconds`).
        public var funnel: FunnelReport? = nil
        /// One-click unsubscribe from reminder mails (`/mail/unsubscribe/{token}`).
        public var unsubscribeReminders: UnsubscribeReminders? = nil
        /// The accounts that pay twice for one entitlement (for the console).
        public var duplicates: DuplicateSubscriptionsReport? = nil

        public init(
            redeem: RedeemCode, lookUpCode: LookUpCode, resendCodes: ResendCodes, listEntitlements: ListEntitlements,
            checkoutStatus: CheckoutStatus, startCheckout: StartCheckout, completeCheckout: CompleteCheckout,
            applyStripeEvent: ApplyStripeEvent?, applyAppleNotification: ApplyAppleNotification,
            applyGoogleNotification: ApplyGoogleNotification, recordReceipt: RecordReceipt, claimStorePurchase: ClaimStorePurchase,
            claimGoNativeReceipt: ClaimGoNativeReceipt, setAccountEmail: SetAccountEmail, confirmEmail: ConfirmEmail,
            setPassword: SetPassword, signIn: SignIn, deleteAccount: DeleteAccount, exportAccount: ExportAccount,
            webSignIn: WebSignIn, webAccount: WebAccount, formTokens: FormTokens,
            operatorActions: OperatorActions, idempotentReplies: IdempotentReplies, checkoutEligibility: CheckoutEligibility,
            reconcile: ReconcilePurchases? = nil
        ) {
            self.checkoutEligibility = checkoutEligibility
            self.reconcile = reconcile
            self.webSignIn = webSignIn
            self.webAccount = webAccount
            self.formTokens = formTokens
            self.deleteAccount = deleteAccount
            self.exportAccount = exportAccount
            self.redeem = redeem
            self.lookUpCode = lookUpCode
            self.resendCodes = resendCodes
            self.listEntitlements = listEntitlements
            self.checkoutStatus = checkoutStatus
            self.startCheckout = startCheckout
            self.completeCheckout = completeCheckout
            self.applyStripeEvent = applyStripeEvent
            self.applyAppleNotification = applyAppleNotification
            self.applyGoogleNotification = applyGoogleNotification
            self.recordReceipt = recordReceipt
            self.claimStorePurchase = claimStorePurchase
            self.claimGoNativeReceipt = claimGoNativeReceipt
            self.setAccountEmail = setAccountEmail
            self.confirmEmail = confirmEmail
            self.setPassword = setPassword
            self.signIn = signIn
            self.operatorActions = operatorActions
            self.idempotentReplies = idempotentReplies
        }
    }

    /// What the operations endpoints read.
    public struct Operations: Sendable {
        public var metrics: Metrics
        public var checkWritable: @Sendable () async throws -> Void
        /// The database's figures (errors, write latency, WAL size), read when scraped.
        public var database: @Sendable () -> DatabaseFigures
        public var openConnections: @Sendable () -> Int
        public var outbox: ViewOutbox
        /// The event worker's counters (`/metrics`).
        public var eventStats: EventDeliveryStats?
        /// What retention deleted (`/metrics`).
        public var retentionStats: RetentionStats?
        /// What the reconciler found (`/metrics`).
        public var reconcileStats: ReconcileStats?

        public init(
            metrics: Metrics, checkWritable: @escaping @Sendable () async throws -> Void, database: @escaping @Sendable () -> DatabaseFigures,
            openConnections: @escaping @Sendable () -> Int, outbox: ViewOutbox, eventStats: EventDeliveryStats? = nil,
            retentionStats: RetentionStats? = nil, reconcileStats: ReconcileStats? = nil
        ) {
            self.reconcileStats = reconcileStats
            self.retentionStats = retentionStats
            self.eventStats = eventStats
            self.metrics = metrics
            self.checkWritable = checkWritable
            self.database = database
            self.openConnections = openConnections
            self.outbox = outbox
        }
    }

    /// The responder that serves every route.
    public let responder: AppResponder
    /// Failure and request limits per client (shared by every limited route).
    public let rateLimiter: RateLimiter

    /// - Parameters:
    ///   - extraRoutes: routes of parts outside the web layer (demo mode's Stripe), behind the global chain only.
    public init(
        settings: WebSettings, pages: Pages, staticFiles: StaticFiles, useCases cases: UseCaseSet, operations: Operations,
        extraRoutes: RouteGroup = RouteGroup(), now: @escaping @Sendable () -> Date
    ) {
        // Room for two failure keys per client address (per address, per address and app user) from
        // well over 100,000 addresses before pruning.
        let limiter = RateLimiter(capacity: 250_000)
        rateLimiter = limiter
        let clientAddress = settings.clientAddress
        let middleware = RouteMiddleware(
            limiter: limiter, clientAddress: clientAddress, budgets: settings.rateBudgets, replies: cases.idempotentReplies, now: now)
        let links = Links(baseURL: settings.baseURL, appScheme: settings.app.scheme)
        let products = settings.productNames

        var open = RouteGroup()
        OperationsRoutes(
            checkWritable: operations.checkWritable, database: operations.database, metrics: operations.metrics,
            outboxDepth: { [outbox = operations.outbox] in try await outbox.depth() },
            openConnections: operations.openConnections,
            events: operations.eventStats.map { stats in
                EventMetrics(stats: stats, operations: cases.operatorActions)
            }, retention: operations.retentionStats, reconcile: operations.reconcileStats,
            linkOut: LinkOutMetrics(operations: cases.operatorActions), funnel: cases.funnel, now: now
        ).add(to: &open)
        if let unsubscribe = cases.unsubscribeReminders { UnsubscribeRoutes(unsubscribe: unsubscribe, pages: pages, now: now).add(to: &open) }
        let home: [String: TemplateValue] =
            settings.demoHome.map { demo in
                ["demo": true, "demo_plan": .string(demo.plan), "mail_dir": .string(demo.mailDirectory + "/")]
            } ?? [:]
        PageRoutes(pages: pages, staticFiles: staticFiles, home: home, https: settings.isHTTPS)
            .add(to: &open)
        WellKnownRoutes(app: settings.app).add(to: &open)
        RedeemPageRoutes(lookUp: cases.lookUpCode, resend: cases.resendCodes, pages: pages, links: links, app: settings.app, now: now)
            .add(to: &open, middleware)
        let gate = WebSessionGate(signIn: cases.webSignIn, forms: cases.formTokens, cookies: WebCookies(baseURL: settings.baseURL), now: now)
        CheckoutRoutes(
            start: cases.startCheckout, complete: cases.completeCheckout, pages: pages, links: links, products: products, app: settings.app,
            now: now, gate: gate
        ).add(to: &open)
        let emails = EmailRoutes(setEmail: cases.setAccountEmail, confirm: cases.confirmEmail, pages: pages, links: links, now: now)
        emails.addPages(to: &open, middleware)
        PasswordRoutes(setPassword: cases.setPassword, pages: pages, links: links, now: now).add(to: &open)
        let signIn = SignInRoutes(signIn: cases.signIn, pages: pages, links: links, now: now)
        signIn.addPages(to: &open)
        WebSignInRoutes(signIn: cases.webSignIn, gate: gate, pages: pages, now: now)
            .add(to: &open, middleware)
        WebAccountRoutes(
            account: cases.webAccount, delete: cases.deleteAccount, export: cases.exportAccount, gate: gate, pages: pages, products: products,
            now: now
        ).add(to: &open, middleware)
        GoNativeRoutes(
            claim: cases.claimGoNativeReceipt, gate: gate, pages: pages, products: settings.products, names: products, appName: settings.app.name,
            links: links, now: now
        ).add(to: &open)

        var webhooks = RouteGroup()
        StripeWebhookRoute(apply: cases.applyStripeEvent, now: now).add(to: &webhooks)
        AppleWebhookRoute(apply: cases.applyAppleNotification, now: now).add(to: &webhooks)
        GoogleWebhookRoute(apply: cases.applyGoogleNotification).add(to: &webhooks)

        var app = RouteGroup([APIKeyMiddleware(publicKeys: settings.publicAPIKeys)])
        RedemptionAPIRoutes(
            redeem: cases.redeem, entitlements: cases.listEntitlements, checkoutStatus: cases.checkoutStatus, resend: cases.resendCodes,
            now: now
        ).add(to: &app, middleware)
        signIn.addAPI(to: &app, middleware)
        emails.addAPI(to: &app, middleware)
        AccountDataRoutes(delete: cases.deleteAccount, export: cases.exportAccount, now: now).add(to: &app)
        IAPAccountRoutes(claim: cases.claimStorePurchase, now: now).add(to: &app, middleware)
        CheckoutEligibilityRoute(eligibility: cases.checkoutEligibility, links: links, now: now).add(to: &app)
        StoreAPIRoutes(
            gonative: cases.claimGoNativeReceipt, products: settings.products, entitlements: settings.entitlements, appName: settings.app.name,
            pages: pages, links: links, now: now
        ).add(to: &app, middleware)

        var partners = RouteGroup([ServerKeyMiddleware(serverKeys: settings.serverKeys)])
        ReceiptsRoute(record: cases.recordReceipt, now: now).add(to: &partners)

        var admin = RouteGroup([AdminTokenMiddleware(tokenHashes: settings.adminTokenHashes, names: settings.adminTokenNames)])
        AdminCodeRoutes(operations: cases.operatorActions, now: now).add(to: &admin)
        AdminOutboxRoutes(outbox: operations.outbox).add(to: &admin)
        AdminEventRoutes(operations: cases.operatorActions, now: now).add(to: &admin)
        AdminReportRoutes(operations: cases.operatorActions, now: now).add(to: &admin)
        AdminAccountRoutes(delete: cases.deleteAccount, now: now).add(to: &admin)
        AdminSecretRoutes(operations: cases.operatorActions, now: now).add(to: &admin)
        AdminReconcileRoutes(reconcile: cases.reconcile, intervalSeconds: settings.reconcileIntervalSeconds, now: now).add(to: &admin)
        if let funnel = cases.funnel { AdminFunnelRoutes(funnel: funnel, now: now).add(to: &admin) }

        var router = Router()
        for group in [open, webhooks, app, partners, admin, extraRoutes] { router.add(group) }
        responder = AppResponder(
            routes: router, metrics: operations.metrics, pages: pages, https: settings.isHTTPS)
    }
}
