import Configuration
import Domain
import Foundation
import Integrations
import Logging
import Storage
import Synchronization
import UseCases

/// Makes the use cases from `Essentials`, each on demand and given exactly what it uses. The
/// parts several use cases share (the code vault, the event queue, the configured rules) are
/// made once here; the Stripe client, the only costly one, when a use case first asks for it.
/// A command makes the one or two use cases it runs; `serve` makes every one its routes call.
public struct UseCaseFactory: Sendable {
    public let essentials: Essentials
    /// Queues events for the app's backend in a caller's transaction (`events.endpoints`).
    public let events: EventQueue
    /// The configured event endpoints.
    public let eventEndpoints: [EventEndpoint]
    /// Codes app users redeemed again lately (one per process, shared by every `redeemCode`).
    public let recentRepeats: RecentRepeats
    let vault: CodeVault
    let policy: RedemptionPolicy
    let catalog: EntitlementCatalog
    let links: Links
    let reconcileLimits: ReconcileLimits
    private let stripeClient: Lazy<StripeClient?>

    var config: TollgateConfig { essentials.config }
    var database: Database { essentials.database }
    var logger: Logger { essentials.logger }
    var now: @Sendable () -> Date { essentials.now }

    /// - Parameters:
    ///   - serviceURL: where this instance's listener answers, for the Stripe client of demo
    ///     mode (the simulator's API is mounted there); by default the configured `listen` address.
    ///   - eventDelivery: how long an event is retried (tests shorten it).
    ///   - reconcileLimits: how much a reconcile run reads (tests and benchmarks shrink or grow them).
    /// - Throws: `CryptoError` (the secrets), `EventEndpoint`'s error for an endpoint URL.
    public init(
        _ essentials: Essentials, serviceURL: (@Sendable () -> String)? = nil,
        eventDelivery: EventDeliveryConfiguration = EventDeliveryConfiguration(), reconcileLimits: ReconcileLimits = ReconcileLimits()
    ) throws {
        self.essentials = essentials
        let config = essentials.config
        vault = try CodeVault(secrets: essentials.secrets)
        catalog = EntitlementCatalog(config.entitlements)
        eventEndpoints = try config.events.endpoints.map { try EventEndpoint(url: $0.url, secrets: $0.secrets, types: $0.types) }
        events = EventQueue(
            subscriptions: eventEndpoints.map(\.subscription), catalog: catalog, retryWindow: eventDelivery.retryWindow,
            wake: essentials.wakes.waker(.events))
        policy = RedemptionPolicy(
            onOtherUser: OtherUserPolicy(rawValue: config.redemption.onOtherUser.rawValue) ?? .switch,
            maxDevices: config.redemption.maxDevices,
            codeTTL: TimeInterval(config.redemption.codeTTLSeconds),
            resendInterval: TimeInterval(config.redemption.resendIntervalSeconds))
        links = Links(baseURL: config.baseURL, appScheme: config.app.scheme)
        recentRepeats = RecentRepeats()
        self.reconcileLimits = reconcileLimits
        let listen = config.listen
        let serviceURL = serviceURL ?? { listen.localURL(port: listen.port) }
        stripeClient = Lazy { try StripeSetup.client(config, serviceURL: serviceURL) }
    }

    // MARK: - Shared parts

    /// The Stripe client (nil when Stripe is not configured), made once.
    public var stripe: StripeClient? { get throws { try stripeClient.value } }
    var linkOutVault: LinkOutTokenVault { get throws { try LinkOutTokenVault(secrets: essentials.secrets) } }
    var linkOutQueued: @Sendable () -> Void { essentials.wakes.waker(.linkOut) }
    var resend: CodeResend { CodeResend(policy: policy, vault: vault, events: events) }
    var products: ProductNames { ProductNames(entitlements: config.entitlements, planPrices: config.plans.mapValues(\.priceID)) }
    var codeMail: CodeMail { CodeMail(mail: essentials.mail, links: links, products: products) }
    var authMail: AuthMail {
        AuthMail(mail: essentials.mail, links: links, now: now, secrets: essentials.secrets, resendInterval: policy.resendInterval)
    }
    var vouching: StripeVouching {
        StripeVouching(prices: Set(config.plans.values.map(\.priceID)).union(config.entitlements.values.joined()))
    }
    var durations: ProductDurations { ProductDurations(days: config.productsDurationDays) }
    var reminders: ReminderSchedule { ReminderSchedule(offsets: config.redemption.effectiveReminders.map(TimeInterval.init)) }
    var redirects: CheckoutRedirects {
        CheckoutRedirects(always: config.redemption.mode == .redirect, urls: config.redemption.redirectURLs)
    }
    var plans: [String: CheckoutPlan] {
        config.plans.mapValues { CheckoutPlan(priceID: $0.priceID, isOneTimePayment: $0.mode == .payment) }
    }
    var holdings: AlreadyEntitledCheck {
        AlreadyEntitledCheck(
            database: database, catalog: catalog, links: links, androidPackage: config.app.android.packageName,
            refuses: config.checkout.onAlreadyEntitled == .refuse)
    }
    /// Verifies purchases with their stores (shared by the store use cases).
    public var storeVerifier: StorePurchaseVerifier {
        get throws {
            let stores = essentials.stores
            return StorePurchaseVerifier(
                stores: stores, stripe: try stripe, database: database, now: now, durations: durations, events: events,
                receiptVault: stores.appStoreAPI == nil && stores.verifyReceipt != nil ? AppStoreReceiptVault(secrets: essentials.secrets) : nil)
        }
    }
    /// Queues due reminder mails' parameters (the reminder worker's).
    var reminderMail: ReminderMail { ReminderMail(codeMail: codeMail, vault: vault, codeTTL: policy.codeTTL, events: events) }
}

/// A value made the first time it is read, then kept.
final class Lazy<Value: Sendable>: Sendable {
    private let make: @Sendable () throws -> Value
    private let made = Mutex<Value?>(nil)

    init(_ make: @escaping @Sendable () throws -> Value) { self.make = make }

    var value: Value {
        get throws {
            try made.withLock { made in
                if let made { return made }
                let value = try make()
                made = value
                return value
            }
        }
    }
}
