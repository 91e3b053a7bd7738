import Domain
import Foundation
import UseCases

/// The use cases, each made when asked for.
extension UseCaseFactory {
    public var redeemCode: RedeemCode {
        RedeemCode(
            database: database, policy: policy, vault: vault, secrets: essentials.secrets, events: events, recentRepeats: recentRepeats,
            catalog: catalog, codeMail: codeMail, logger: logger)
    }
    public var lookUpCode: LookUpCode { LookUpCode(database: database, vault: vault) }
    public var resendCodes: ResendCodes { ResendCodes(database: database, resend: resend, codeMail: codeMail) }
    public var listEntitlements: ListEntitlements { ListEntitlements(database: database, catalog: catalog) }
    public var checkoutStatus: CheckoutStatus { CheckoutStatus(database: database, catalog: catalog, vault: vault) }
    public var startCheckout: StartCheckout {
        get throws {
            StartCheckout(
                database: database, stripe: try stripe, links: links, plans: plans, redirects: redirects,
                allowPromotionCodes: config.stripe.allowPromotionCodes,
                linkOut: LinkOutCheckout(
                    policy: LinkOutPolicy(config.linkOut),
                    app: .init(bundleID: config.app.ios.bundleID, appAppleID: config.app.ios.appAppleID.map(Int64.init))),
                tokenVault: try linkOutVault, logger: logger, alreadyEntitled: holdings)
        }
    }
    public var completeCheckout: CompleteCheckout {
        get throws {
            CompleteCheckout(
                database: database, stripe: try stripe, codeTTL: policy.codeTTL, vault: vault, secrets: essentials.secrets, events: events,
                reminders: reminders, codeMail: codeMail, vouching: vouching, redirects: redirects, linkOutQueued: linkOutQueued)
        }
    }
    /// Nil without a Stripe client.
    public var applyStripeEvent: ApplyStripeEvent? {
        get throws {
            guard let stripe = try stripe else { return nil }
            return ApplyStripeEvent(
                database: database, stripe: stripe, webhookSecrets: try StripeSetup.webhookSecrets(config),
                completeCheckout: try completeCheckout, vouching: vouching, logger: logger, events: events, linkOutQueued: linkOutQueued)
        }
    }
    public var applyAppleNotification: ApplyAppleNotification {
        get throws {
            ApplyAppleNotification(
                verifier: essentials.stores.appleVerifier, database: database, logger: logger, durations: durations, events: events,
                linkOutVault: try linkOutVault, linkOutQueued: linkOutQueued,
                answersConsumptionRequests: config.apple.consumption.enabled, consumptionQueued: essentials.wakes.waker(.consumption))
        }
    }
    public var applyGoogleNotification: ApplyGoogleNotification {
        get throws {
            ApplyGoogleNotification(
                rtdnToken: config.google.rtdnToken, packageName: config.app.android.packageName, verifier: try storeVerifier,
                database: database, logger: logger, now: now, events: events)
        }
    }
    /// The reconciler of every configured provider; `stats` is what `/metrics` reads (one per process).
    public func reconcile(stats: ReconcileStats = ReconcileStats()) throws -> ReconcilePurchases {
        ReconcilePurchases(
            database: database, stripe: try stripe, applyStripeEvent: try applyStripeEvent, verifier: try storeVerifier,
            applyAppleNotification: try applyAppleNotification, applyGoogleNotification: try applyGoogleNotification, events: events,
            limits: reconcileLimits, logger: logger, now: now, stats: stats)
    }
    public var recordReceipt: RecordReceipt {
        get throws {
            RecordReceipt(
                verifier: try storeVerifier, policy: policy.onOtherUser, secrets: essentials.secrets, catalog: catalog, vouching: vouching,
                events: events)
        }
    }
    public var claimStorePurchase: ClaimStorePurchase {
        get throws {
            ClaimStorePurchase(
                verifier: try storeVerifier, database: database, policy: policy.onOtherUser, secrets: essentials.secrets, authMail: authMail,
                mail: essentials.mail, links: links, events: events)
        }
    }
    public var claimGoNativeReceipt: ClaimGoNativeReceipt {
        get throws {
            ClaimGoNativeReceipt(verifier: try storeVerifier, database: database, policy: policy.onOtherUser, catalog: catalog, events: events)
        }
    }
    public var setAccountEmail: SetAccountEmail { SetAccountEmail(database: database, authMail: authMail, mail: essentials.mail) }
    public var confirmEmail: ConfirmEmail { ConfirmEmail(database: database, authMail: authMail, mail: essentials.mail, events: events) }
    public var setPassword: SetPassword { SetPassword(database: database) }
    public var signIn: SignIn { SignIn(database: database, authMail: authMail, mail: essentials.mail, logger: logger) }
    public var deleteAccount: DeleteAccount { DeleteAccount(database: database, events: events) }
    public var exportAccount: ExportAccount { ExportAccount(database: database, catalog: catalog) }
    public var webSignIn: WebSignIn {
        WebSignIn(database: database, mail: essentials.mail, links: links, authMail: authMail, secrets: essentials.secrets, logger: logger)
    }
    public var webAccount: WebAccount {
        get throws {
            WebAccount(
                database: database, catalog: catalog, resend: resend, codeMail: codeMail, stripe: try stripe, links: links,
                logger: logger)
        }
    }
    public var formTokens: FormTokens { FormTokens(secrets: essentials.secrets) }
    /// What operators can do (the admin API, the console and `tollgate admin`).
    public var operatorActions: OperatorActions {
        OperatorActions(database: database, resend: resend, codeMail: codeMail, events: events)
    }
    /// The mail outbox as operators see it.
    public var outbox: ViewOutbox { ViewOutbox(database: database) }
    public var idempotentReplies: IdempotentReplies { IdempotentReplies(database: database, secrets: essentials.secrets) }
    public var checkoutEligibility: CheckoutEligibility {
        CheckoutEligibility(policy: LinkOutPolicy(config.linkOut), holdings: holdings, planPrices: plans.values.map(\.priceID).sorted())
    }
    /// The redemption funnel (`GET /admin/v1/funnel`, `tollgate admin funnel`).
    public var funnel: FunnelReport { FunnelReport(database: database) }
    public var unsubscribeReminders: UnsubscribeReminders { UnsubscribeReminders(database: database) }
    public var duplicates: DuplicateSubscriptionsReport { DuplicateSubscriptionsReport(database: database) }

    // MARK: - The operators' console

    public var consoleSignIn: ConsoleSignIn { ConsoleSignIn(database: database, secrets: essentials.secrets) }
    public var consoleOperators: ConsoleOperators {
        ConsoleOperators(
            database: database, mail: essentials.mail, links: links, secrets: essentials.secrets,
            issuer: (config.app.name.isEmpty ? "Tollgate" : config.app.name) + " console")
    }
    public var consoleQueries: ConsoleQueries { get throws { try ConsoleQueries(database: database, secrets: essentials.secrets) } }
    public var consoleActions: ConsoleActions {
        ConsoleActions(
            database: database, authMail: authMail, mail: essentials.mail, secrets: essentials.secrets, events: events,
            linkOutQueued: linkOutQueued)
    }
    /// An admin's grants of an entitlement until a date (the console's account page).
    public var manualEntitlements: ManualEntitlements { ManualEntitlements(database: database, catalog: catalog, events: events) }
}
