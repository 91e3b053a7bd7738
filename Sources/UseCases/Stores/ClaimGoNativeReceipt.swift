import Domain
import Foundation
import Integrations
import Storage

/// `POST /api/v1/iap/gonative` and `POST /gonative/receipt`: a GoNative app's App Store receipt, verified with verifyReceipt
/// and every purchase in it stored; its newest purchase is linked to the signed-in account (held by
/// another account: moved under `transfer`, refused otherwise), and the others with it
/// (`PurchaseClaim.claimAlongside`). It unlocks when any of them grants access now.
public struct ClaimGoNativeReceipt: Sendable {
    /// GoNative's outcomes (each becomes its `{success, title, message, loadUrl}`).
    public enum Outcome: Sendable {
        /// Stored and active: the entitlements it unlocks.
        case unlocked(Purchase, entitlements: [String])
        /// Stored, no longer active.
        case expired
        /// The store refused the receipt, with why.
        case notVerified(Refusal)
        case belongsToOtherAccount
    }

    /// Why the store refused a receipt: Apple's verifyReceipt `status` (21002, 21003, ...; nil when
    /// Apple accepted a receipt that is not this app's or holds no purchase) and a sentence a
    /// developer can act on. Never the receipt's bytes.
    public struct Refusal: Sendable, Equatable {
        public let status: Int?
        public let reason: String

        public init(status: Int?, reason: String) {
            self.status = status
            self.reason = reason
        }
    }

    let verifier: StorePurchaseVerifier
    let database: Database
    let policy: OtherUserPolicy
    let catalog: EntitlementCatalog
    let events: EventQueue

    public init(
        verifier: StorePurchaseVerifier, database: Database, policy: OtherUserPolicy, catalog: EntitlementCatalog, events: EventQueue = .disabled
    ) {
        self.events = events
        self.verifier = verifier
        self.database = database
        self.policy = policy
        self.catalog = catalog
    }

    /// Refuses an invalid credential before the store is asked anything.
    /// - Throws: `UseCaseError.unauthorized`.
    public func checkSignedIn(_ credential: Credential, now: Date) async throws {
        _ = try await database.read { try credential.requireAccount(on: $0, now: now) }
    }

    /// - Parameter credential: the app's bearer token (`/api/v1/iap/gonative`) or the web session
    ///   of the GoNative web view (`/gonative/receipt`).
    /// - Throws: `UseCaseError` (`unauthorized`, `upstream_unavailable`, `not_configured`), `StorageError`.
    public func claim(receipt: String, credential: Credential, now: Date) async throws -> Outcome {
        let verified: VerifiedStorePurchase
        do {
            verified = try await verifier.appStoreReceipt(receipt)
        } catch AppStoreError.receipt(let refusal) {
            return .notVerified(
                Refusal(status: refusal.status, reason: "The App Store refused the receipt (\(refusal.kind.rawValue)): \(refusal.message)."))
        } catch {
            let mapped = StoreErrors.apiError(for: error)
            if let refused = mapped as? UseCaseError, refused.code == "invalid_receipt" {
                return .notVerified(Refusal(status: nil, reason: refused.message))
            }
            throw mapped
        }
        let policy = self.policy
        let catalog = self.catalog
        let events = self.events
        return try await verifier.record(verified) { connection, applied -> Outcome in
            let accountID = try credential.requireAccount(on: connection, now: now)
            let claim = try PurchaseClaim.claim(
                applied.purchase, for: accountID, appUserID: nil, policy: policy, events: events, on: connection, now: now)
            guard case .held(let holder, _) = claim else { return .belongsToOtherAccount }
            let purchase = try PurchaseRepository.require(id: applied.purchase.id, on: connection)
            let others = try PurchaseClaim.claimAlongside(verified.alongside, for: holder, policy: policy, events: events, on: connection, now: now)
            let held = [purchase] + others
            guard let entitled = held.first(where: { $0.isEntitled(at: now) }) else { return .expired }
            return .unlocked(entitled, entitlements: catalog.entitlements(for: held, at: now).filter(\.active).map(\.id))
        }
    }
}
