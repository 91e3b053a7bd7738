import Foundation

extension AppStoreServerAPIClient {
    /// The present state of the auto-renewable subscription that `transactionID` (its original
    /// transaction id or any of its transaction ids) belongs to, read with Get All Subscription
    /// Statuses: `GET /inApps/v1/subscriptions/{transactionID}` on the production host, then on
    /// the sandbox host when production answers 404.
    ///
    /// Apple answers with every auto-renewable subscription of the customer who owns
    /// `transactionID`, grouped by subscription group; for a transaction that is not a
    /// subscription (a consumable, a non-consumable, a non-renewing subscription) it answers
    /// the customer's subscriptions too, or none. So the entry is the one whose
    /// `originalTransactionId` is `transactionID`; when none is, the transaction is looked up with
    /// Get Transaction Info to learn its original id and type: one that is not an
    /// `Auto-Renewable Subscription` is `AppStoreError.api` (`.notASubscription`).
    /// - Throws: `AppStoreError.api` (`.invalidTransactionID` before any request,
    ///   `.transactionNotFound` when both hosts answer 404, `.notASubscription`, `.requestRejected`);
    ///   `AppStoreError.configuration` (401); `UpstreamError` (unreachable, 429, 5xx, unreadable);
    ///   `AppStoreError.verification` when the signed data does not verify.
    public func subscriptionStatus(transactionID: String) async throws -> AppStoreSubscriptionStatus {
        try Self.checkTransactionID(transactionID)
        for (baseURL, environment) in [(productionBaseURL, AppStoreEnvironment.production), (sandboxBaseURL, .sandbox)] {
            let response = try await get(baseURL, path: "/inApps/v1/subscriptions/\(transactionID)", environment: environment)
            switch response.status {
            case 200:
                let entries = try Self.statusEntries(response.body, environment: environment)
                if let entry = entries.first(where: { $0.originalTransactionId == transactionID }) {
                    return try verified(entry, environment: environment)
                }
                // Not the original id: which subscription, if any, does the transaction belong to?
                let transaction = try await self.transaction(id: transactionID)
                guard transaction.isAutoRenewable, let original = transaction.originalTransactionID else {
                    throw AppStoreError.api(
                        .init(
                            .notASubscription,
                            "transaction \(transactionID) is a \(transaction.type ?? "purchase of unknown type"), not an auto-renewable subscription")
                    )
                }
                guard let entry = entries.first(where: { $0.originalTransactionId == original }) else {
                    throw UpstreamError(
                        service: "app_store", kind: .invalidResponse,
                        message: "App Store Server API (\(environment.rawValue)) listed no status for subscription \(original)")
                }
                return try verified(entry, environment: environment)
            case 404:
                continue
            default:
                try Self.throwForStatus(response, environment: environment)
            }
        }
        throw AppStoreError.api(
            .init(
                .transactionNotFound, errorCode: Self.transactionNotFoundErrorCode,
                "transaction \(transactionID) is unknown to both the production and the sandbox App Store"))
    }

    /// One `lastTransactions` item of a `StatusResponse`.
    struct StatusEntry: Decodable {
        let status: Int?
        let originalTransactionId: String?
        let signedTransactionInfo: String?
        let signedRenewalInfo: String?
    }

    /// Every `data[].lastTransactions[]` item of a `StatusResponse` body.
    /// - Throws: `UpstreamError` (`invalidResponse`) when the body is not a `StatusResponse`.
    static func statusEntries(_ body: [UInt8], environment: AppStoreEnvironment) throws -> [StatusEntry] {
        struct Group: Decodable { let lastTransactions: [StatusEntry]? }
        struct Answer: Decodable { let data: [Group]? }
        guard let answer = try? JSONDecoder().decode(Answer.self, from: Data(body)) else {
            throw UpstreamError(
                service: "app_store", kind: .invalidResponse,
                message: "\(environment.rawValue) subscription statuses answer is not a StatusResponse")
        }
        return (answer.data ?? []).flatMap { $0.lastTransactions ?? [] }
    }

    /// The entry with its signed data verified as data of `environment`.
    private func verified(_ entry: StatusEntry, environment: AppStoreEnvironment) throws -> AppStoreSubscriptionStatus {
        guard let original = entry.originalTransactionId, let status = entry.status, let signed = entry.signedTransactionInfo else {
            throw UpstreamError(
                service: "app_store", kind: .invalidResponse,
                message: "\(environment.rawValue) subscription status lacks status or signedTransactionInfo")
        }
        let verifier = self.verifier.withEnvironment(environment)
        let now = clock()
        let transaction = try verifier.verifyTransaction(signed, now: now)
        guard transaction.originalTransactionID == original else {
            throw AppStoreError.verification(
                .init(
                    .invalidFormat,
                    "the signed transaction of subscription \(original) names original transaction \(transaction.originalTransactionID ?? "(none)")"))
        }
        let renewalInfo = try entry.signedRenewalInfo.map { try verifier.verifyRenewalInfo($0, now: now) }
        return AppStoreSubscriptionStatus(
            originalTransactionID: original, status: status, transaction: transaction, renewalInfo: renewalInfo, environment: environment)
    }
}
