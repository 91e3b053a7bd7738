import Domain
import Foundation

/// The present state of one auto-renewable subscription, as Get All Subscription Statuses
/// (`GET /inApps/v1/subscriptions/{transactionId}`) reports it: the `data[].lastTransactions[]`
/// entry whose `originalTransactionId` is the subscription's, with its signed data verified.
///
/// Unlike Get Transaction Info, whose answer for an original transaction id is the *first*
/// period, `transaction` here is the subscription's latest transaction: its `expiresDate` is
/// the current period's end.
public struct AppStoreSubscriptionStatus: Sendable, Equatable {
    /// The subscription's original transaction id (the purchase's key).
    public let originalTransactionID: String
    /// Apple's `status`: 1 active, 2 expired, 3 billing retry, 4 billing grace period, 5 revoked.
    public let status: Int
    /// The latest transaction of the subscription (`signedTransactionInfo`), verified.
    public let transaction: AppStoreTransaction
    /// The renewal info (`signedRenewalInfo`), verified; nil when Apple sent none.
    public let renewalInfo: AppStoreRenewalInfo?
    /// The environment of the host that answered (`Production` or `Sandbox`).
    public let environment: AppStoreEnvironment

    /// A status with its verified parts (the client builds it; tests may too).
    public init(
        originalTransactionID: String, status: Int, transaction: AppStoreTransaction, renewalInfo: AppStoreRenewalInfo?,
        environment: AppStoreEnvironment
    ) {
        self.originalTransactionID = originalTransactionID
        self.status = status
        self.transaction = transaction
        self.renewalInfo = renewalInfo
        self.environment = environment
    }

    /// What the status says about the purchase: `AppStoreTransaction.snapshot` of the latest
    /// transaction with the renewal info and `status` (1 active or canceled when renewal is off,
    /// 2 expired, 3 billing retry, 4 grace period until its end, 5 revoked; a revocation date
    /// means refunded or revoked whatever the status). `observedAt` is the transaction's
    /// `signedDate`: when Apple signed this answer.
    /// - Throws: `AppStoreError.verification` (`.missingField`) if the transaction lacks its ids.
    public func snapshot(now: Date = Date()) throws -> PurchaseSnapshot {
        try transaction.snapshot(renewalInfo: renewalInfo, subscriptionStatus: status, now: now)
    }
}
