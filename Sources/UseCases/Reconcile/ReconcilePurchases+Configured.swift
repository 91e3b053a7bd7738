import Domain
import Foundation
import Integrations
import Logging
import Storage

extension ReconcilePurchases {
    /// The reconciler of every provider this service is configured for: Stripe when its client is
    /// (the demo's simulator included), the App Store when its Server API key is (else, where
    /// verifyReceipt is and receipts are kept, by verifying the kept receipts again), Google Play
    /// when its service account is; the others are skipped.
    public init(
        database: Database, stripe: StripeClient?, applyStripeEvent: ApplyStripeEvent?, verifier: StorePurchaseVerifier,
        applyAppleNotification: ApplyAppleNotification, applyGoogleNotification: ApplyGoogleNotification, events: EventQueue,
        limits: ReconcileLimits = ReconcileLimits(), logger: Logger, now: @escaping @Sendable () -> Date, stats: ReconcileStats = ReconcileStats()
    ) {
        var reconcilers: [any ProviderReconciler] = []
        if let stripe, let applyStripeEvent {
            reconcilers.append(ReconcileStripe(client: stripe, apply: applyStripeEvent, limits: limits, logger: logger))
        }
        if let api = verifier.stores.appStoreAPI {
            reconcilers.append(
                ReconcileAppStore(
                    api: api, notifications: applyAppleNotification, verifier: verifier, database: database, limits: limits, logger: logger))
        } else if verifier.stores.verifyReceipt != nil, let vault = verifier.receiptVault {
            reconcilers.append(ReconcileAppStoreReceipts(verifier: verifier, vault: vault, database: database, limits: limits, logger: logger))
        }
        if let play = verifier.stores.googlePlay {
            reconcilers.append(
                ReconcilePlay(
                    client: play, notifications: applyGoogleNotification, voids: ApplyPlayVoid(events: events), database: database,
                    limits: limits, logger: logger))
        }
        self.init(database: database, reconcilers: reconcilers, limits: limits, logger: logger, now: now, stats: stats)
    }
}
