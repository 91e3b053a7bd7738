import Domain
import Foundation
import Logging
import Storage

/// The App Store's catch-up where verifyReceipt is the only way to ask Apple (the shared secret,
/// no App Store Server API key: GoNative's set-up): every App Store subscription whose period
/// ended without news is asked once, by verifying its latest kept receipt again
/// (`AppStoreReceiptRepository`), whose `latest_receipt_info` holds the renewals Apple made since;
/// the purchase's newest state is applied as a claim would apply it. A subscription without a kept
/// receipt (claimed before receipts were kept) has nothing to ask with and keeps its state. There is
/// no notification history to read without the API, so the cursor only marks the run.
struct ReconcileAppStoreReceipts: ProviderReconciler {
    let verifier: StorePurchaseVerifier
    let vault: AppStoreReceiptVault
    let database: Database
    let limits: ReconcileLimits
    let logger: Logger

    var provider: String { Platform.appStore.rawValue }

    func reconcile(from entry: ReconcileLedger.Entry?, since: Date?, now: Date) async -> ReconcileLedger.RunRecord {
        let verifier = self.verifier
        let vault = self.vault
        let database = self.database
        let lapsed = await ReconcileLapsed(platform: .appStore, database: database, limits: limits, logger: logger).run(now: now) { purchase in
            guard let receipt = try await database.read({ try AppStoreReceiptRepository.receipt(purchaseID: purchase.id, vault: vault, on: $0) })
            else {
                return false
            }
            let verified: VerifiedStorePurchase
            do {
                verified = try await verifier.appStore(receiptBase64: receipt)
            } catch let error as UseCaseError where error.kind == .unprocessable {
                // Apple refuses the receipt now (e.g. 21010, the account is gone): nothing to correct.
                return false
            }
            guard let present = verified.snapshots.first(where: { $0.externalID == purchase.externalID }) else { return false }
            let others = verified.snapshots.filter { $0.externalID != purchase.externalID }
            return try await verifier.record(VerifiedStorePurchase(snapshot: present, alongside: others, receipt: receipt)) { _, applied in
                applied.stateChanged
            }
        }
        return .init(
            outcome: lapsed.failure == nil ? ReconcileLedger.RunRecord.ok : ReconcileLedger.RunRecord.unavailable,
            error: lapsed.failure.map { "\($0)" }, checked: lapsed.checked, changes: lapsed.changes, cursorAt: now)
    }
}
