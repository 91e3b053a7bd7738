import Crypto
import Foundation
import HTTPCore
import HTTPRouting
import JSON

extension FakeAppStoreServer {
    /// Serves an auto-renewable subscription bought at `start` and renewed `periods - 1` times,
    /// each period `periodLength` long: period `i` is its own transaction (id `originalTransactionID
    /// + i`, `purchaseDate` its start, `expiresDate` its end, `originalPurchaseDate` `start`).
    /// Returns the periods, oldest first.
    /// - Throws: nothing today (see `addTransaction`).
    @discardableResult
    public func addSubscription(
        originalTransactionID: String, productID: String = "com.example.monthly", bundleID: String, start: Date, periods: Int,
        periodLength: TimeInterval = 30 * 86400, environment: Environment, signer: FakeAppStoreSigner, customer: String = defaultCustomer,
        appAccountToken: String? = nil
    ) throws -> [FakeAppStoreTransaction] {
        let first = UInt64(originalTransactionID) ?? 0
        let transactions = (0..<max(periods, 1)).map { period in
            FakeAppStoreTransaction(
                transactionID: String(first + UInt64(period)), originalTransactionID: originalTransactionID, bundleID: bundleID,
                productID: productID, purchaseDate: start.addingTimeInterval(Double(period) * periodLength),
                expiresDate: start.addingTimeInterval(Double(period + 1) * periodLength), type: "Auto-Renewable Subscription",
                environment: environment == .production ? "Production" : "Sandbox", appAccountToken: appAccountToken,
                originalPurchaseDate: start)
        }
        for transaction in transactions {
            try addTransaction(transaction, signer: signer, environment: environment, customer: customer)
        }
        return transactions
    }

    /// Gives the subscription `originalTransactionID` of `environment` this renewal info (signed
    /// when asked for, `signedDate` the fake's now). Without one the fake makes it from the
    /// subscription's state: renewing while it runs, off (`expirationIntent` 1) once expired.
    public func setRenewalInfo(_ info: FakeAppStoreRenewalInfo, signer: FakeAppStoreSigner, environment: Environment) {
        box.state.withLock { $0.renewalInfos[environment, default: [:]][info.originalTransactionID] = (info, signer) }
    }

    /// Makes Get All Subscription Statuses report `status` (1 active, 2 expired, 3 billing retry,
    /// 4 grace period, 5 revoked) for `originalTransactionID`, or derive it again when nil.
    public func setSubscriptionStatus(_ status: Int?, originalTransactionID: String, environment: Environment) {
        box.state.withLock { $0.forcedSubscriptionStatus[environment, default: [:]][originalTransactionID] = status }
    }

    /// Get All Subscription Statuses: every auto-renewable subscription of the customer who owns
    /// transaction `id` (any of its ids, or a non-subscription purchase's), grouped by
    /// subscription group, each with its latest transaction and renewal info signed now.
    static func subscriptionStatuses(
        _ id: String, environment: Environment, bundleID: String, appAppleID: Int?, now: Date, box: Box
    ) -> HTTPResponse {
        guard isTransactionID(id) else { return .appleError(code: 4000006, message: "Invalid transaction id.", status: 400) }
        let state = box.state.withLock { $0 }
        let stored = state.stored[environment] ?? [:]
        guard let owner = stored[id] else { return .appleError(code: 4040010, message: "Transaction id not found.", status: 404) }
        // The latest period of each of the customer's subscriptions.
        var latest: [String: Stored] = [:]
        for entry in stored.values where entry.customer == owner.customer && entry.transaction.isAutoRenewable {
            let original = entry.transaction.originalTransactionID
            if let current = latest[original], current.transaction.purchaseDate >= entry.transaction.purchaseDate { continue }
            latest[original] = entry
        }
        var groups: [(key: String, value: JSONValue)] = []
        var items: [String: [JSONValue]] = [:]
        for entry in latest.values.sorted(by: { $0.transaction.originalTransactionID < $1.transaction.originalTransactionID }) {
            var transaction = entry.transaction
            transaction.signedDate = now
            let original = transaction.originalTransactionID
            var renewal = state.renewalInfos[environment]?[original]?.info ?? defaultRenewalInfo(for: transaction, now: now)
            renewal.signedDate = now
            let signer = state.renewalInfos[environment]?[original]?.signer ?? entry.signer
            let status = state.forcedSubscriptionStatus[environment]?[original] ?? derivedStatus(transaction, renewal, now: now)
            guard let signedTransaction = try? entry.signer.signTransaction(transaction),
                let signedRenewal = try? signer.signRenewalInfo(renewal)
            else { return .appleError(code: 5000000, message: "An unknown error occurred.", status: 500) }
            let group = transaction.subscriptionGroupIdentifier
            if items[group] == nil { groups.append((group, .null)) }
            items[group, default: []].append(
                .object([
                    ("status", .integer(Int64(status))), ("originalTransactionId", .string(original)),
                    ("signedTransactionInfo", .string(signedTransaction)), ("signedRenewalInfo", .string(signedRenewal))
                ]))
        }
        let data: [JSONValue] = groups.map { group in
            .object([("subscriptionGroupIdentifier", .string(group.key)), ("lastTransactions", .array(items[group.key] ?? []))])
        }
        var members: [(key: String, value: JSONValue)] = [
            ("environment", .string(environment == .production ? "Production" : "Sandbox")), ("bundleId", .string(bundleID))
        ]
        if environment == .production, let appAppleID { members.append(("appAppleId", .integer(Int64(appAppleID)))) }
        members.append(("data", .array(data)))
        return HTTPResponse(status: .ok, headers: ["Content-Type": "application/json"], body: JSONValue.object(members).serialized())
    }

    /// Apple's `status` of a subscription from its latest transaction and renewal info: 5 revoked,
    /// 1 running, 4 in a grace period, 3 in billing retry, 2 expired.
    static func derivedStatus(_ transaction: FakeAppStoreTransaction, _ renewal: FakeAppStoreRenewalInfo, now: Date) -> Int {
        if transaction.revocationDate != nil { return 5 }
        if let expires = transaction.expiresDate, expires > now { return 1 }
        if renewal.isInBillingRetryPeriod == true {
            if let grace = renewal.gracePeriodExpiresDate, grace > now { return 4 }
            return 3
        }
        return 2
    }

    /// Renewal info as the App Store keeps it when none was set: renewing into the same product
    /// while the period runs; turned off by the customer (`expirationIntent` 1) once expired.
    static func defaultRenewalInfo(for transaction: FakeAppStoreTransaction, now: Date) -> FakeAppStoreRenewalInfo {
        let running = transaction.revocationDate == nil && (transaction.expiresDate.map { $0 > now } ?? false)
        return FakeAppStoreRenewalInfo(
            originalTransactionID: transaction.originalTransactionID, productID: transaction.productID, autoRenewStatus: running ? 1 : 0,
            expirationIntent: running ? nil : 1, environment: transaction.environment, signedDate: now)
    }
}
