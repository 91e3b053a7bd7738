import Domain
import Foundation
import Integrations

extension ApplyGoogleNotification {
    /// Re-reads the Play subscription `purchaseToken` (`purchases.subscriptionsv2.get`) and stores
    /// it exactly as a subscription notification would: applied (kept `refunded` after a void),
    /// linked to the account the app named at purchase, then acknowledged when Google still
    /// waits for it. For the reconciler, on subscriptions whose expiry passed without news.
    /// - Returns: what was applied; nil when Google no longer knows the token (nothing written).
    /// - Throws: `UseCaseError.notConfigured` without Google Play; `UpstreamError` when Google
    ///   cannot be read (nothing written) or the acknowledgement failed (the state is stored, the
    ///   next refresh acknowledges); `GooglePlayError` for configuration problems; `StorageError`.
    public func refreshSubscription(purchaseToken: String) async throws -> PurchaseRepository.Applied? {
        guard verifier.stores.googlePlay != nil else { throw StoreErrors.notConfigured(StoreClients.Missing.googlePlay) }
        let verified: VerifiedStorePurchase
        do {
            verified = try await verifier.playSubscription(purchaseToken: purchaseToken, expectedProductID: nil)
        } catch let error as GooglePlayError where error.kind == .purchaseNotFound {
            logger.warning("google_refresh_unknown_purchase", [("reason", .string(error.description))])
            return nil
        }
        let now = self.now()
        let events = self.events
        let applied = try await database.write { try Self.store(verified.snapshot, events: events, on: $0, now: now) }
        if let acknowledgement = verified.acknowledgement {
            try await verifier.acknowledge(acknowledgement)
        }
        return applied
    }
}
