import Crypto
import Foundation
import JSON

/// A client of Apple's legacy `verifyReceipt` endpoint (STORES.md "Legacy verifyReceipt"), for
/// `app_receipt_base64` and the receipts API.
///
/// POSTs `{"receipt-data", "password", "exclude-old-transactions": true}` and reads `status` (the
/// HTTP status is 200 even for errors):
///
/// | `status` | meaning | result |
/// | --- | --- | --- |
/// | 0 (and 21006, an expired iOS 6 subscription with its data) | valid | `VerifiedReceipt` |
/// | 21007 | a sandbox receipt sent to production | retried once against the sandbox |
/// | 21008 | a production receipt sent to the sandbox | retried once against production |
/// | 21005, 21009, 21100–21199 | Apple's servers are unavailable | retryable `UpstreamError` |
/// | 21002, 21003, 21004, 21010, others | the receipt is refused | `AppStoreError.receipt` (`.invalidReceipt`) |
///
/// Retryable statuses are reported as `UpstreamError.Kind.badStatus(status)` (a verifyReceipt
/// status ≥ 21000, so `retryable` is true) with service `app_store`.
public final class VerifyReceiptClient: Sendable {
    /// Largest receipt accepted before sending anything (real receipts are tens of KiB).
    public static let maximumReceiptLength = 4 << 20

    private let sharedSecret: String?
    private let productionURL: URL
    private let sandboxURL: URL
    private let bundleID: String
    private let http: any OutboundHTTPClient
    private let firstEnvironment: AppStoreEnvironment

    /// A client for the app `bundleID`; `sharedSecret` is the app-specific shared secret (needed for
    /// auto-renewable subscriptions). `firstEnvironment` is where receipts are sent first
    /// (Production unless the deployment only ever sees sandbox receipts).
    public init(
        sharedSecret: String?, productionURL: URL, sandboxURL: URL, bundleID: String, http: any OutboundHTTPClient,
        firstEnvironment: AppStoreEnvironment = .production
    ) {
        self.sharedSecret = sharedSecret
        self.productionURL = productionURL
        self.sandboxURL = sandboxURL
        self.bundleID = bundleID
        self.http = http
        self.firstEnvironment = firstEnvironment == .sandbox ? .sandbox : .production
    }

    /// Verifies a base64 app receipt and returns its newest purchase, with every other purchase
    /// of the receipt in `otherPurchases` (one per `original_transaction_id` of
    /// `latest_receipt_info` and `receipt.in_app`, each its newest item).
    /// - Throws: `AppStoreError.receipt` when Apple refuses the receipt, it belongs to another app or
    ///   holds no purchase; `UpstreamError` (service `app_store`) when Apple is unreachable, asks
    ///   to retry, or answers something unreadable.
    public func verify(receiptBase64: String) async throws -> VerifiedReceipt {
        let receipt = receiptBase64.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !receipt.isEmpty, receipt.utf8.count <= Self.maximumReceiptLength else {
            throw AppStoreError.receipt(.init(.invalidReceipt, status: 21002, "the receipt is empty or too large"))
        }
        var environment = firstEnvironment
        var switched = false
        while true {
            let answer = try await post(receipt, to: environment)
            switch answer.status {
            case 0, 21006:
                return try Self.verifiedReceipt(from: answer, environment: environment, bundleID: bundleID)
            case 21007, 21008:
                let target: AppStoreEnvironment = answer.status == 21007 ? .sandbox : .production
                guard !switched, target != environment else {
                    throw UpstreamError(
                        service: "app_store", kind: .invalidResponse,
                        message: "verifyReceipt \(environment.rawValue) answered \(answer.status) after a retry")
                }
                switched = true
                environment = target
            case 21005, 21009, 21100...21199:
                throw UpstreamError(
                    service: "app_store", kind: .badStatus(answer.status),
                    message: "verifyReceipt \(environment.rawValue) is temporarily unavailable (status \(answer.status))")
            default:
                throw AppStoreError.receipt(.init(.invalidReceipt, status: answer.status, Self.describe(status: answer.status)))
            }
        }
    }

    private static func describe(status: Int) -> String {
        switch status {
        case 21002: "Apple could not read the receipt data (status 21002)"
        case 21003: "Apple could not authenticate the receipt (status 21003)"
        case 21004: "the shared secret does not match the app's (status 21004): check apple.shared_secret"
        case 21010: "the receipt's user account cannot be found or was deleted (status 21010)"
        default: "Apple refused the receipt (status \(status))"
        }
    }

    private func post(_ receipt: String, to environment: AppStoreEnvironment) async throws -> ReceiptAnswer {
        var members: [(key: String, value: JSONValue)] = [("receipt-data", .string(receipt))]
        if let sharedSecret { members.append(("password", .string(sharedSecret))) }
        members.append(("exclude-old-transactions", .bool(true)))
        let request = OutboundRequest(
            method: "POST", url: environment == .sandbox ? sandboxURL : productionURL,
            headers: [("Content-Type", "application/json"), ("Accept", "application/json")],
            body: JSONValue.object(members).serialized())
        let response: OutboundResponse
        do {
            response = try await http.send(request)
        } catch let error as UpstreamError {
            throw UpstreamError(service: "app_store", kind: error.kind, message: error.message)
        }
        guard response.status == 200 else {
            throw UpstreamError(
                service: "app_store", kind: .badStatus(response.status),
                message: "verifyReceipt \(environment.rawValue) answered HTTP \(response.status)")
        }
        do {
            return try JSONDecoder().decode(ReceiptAnswer.self, from: Data(response.body))
        } catch {
            throw UpstreamError(
                service: "app_store", kind: .invalidResponse,
                message: "verifyReceipt \(environment.rawValue) answered something that is not a receipt status")
        }
    }

    private static func verifiedReceipt(from answer: ReceiptAnswer, environment: AppStoreEnvironment, bundleID: String) throws -> VerifiedReceipt {
        guard let receipt = answer.receipt else {
            throw UpstreamError(service: "app_store", kind: .invalidResponse, message: "verifyReceipt answered status 0 without a receipt")
        }
        guard receipt.bundle_id == bundleID else {
            throw AppStoreError.receipt(
                .init(
                    .wrongBundleID,
                    "the receipt is for bundle id \(receipt.bundle_id ?? "(none)"); this server is configured for \(bundleID)"))
        }
        let environmentName = answer.environment ?? environment.rawValue
        let requestDate = try date(receipt.request_date_ms, "request_date_ms")
        // Every purchase of the receipt: the newest item of each original transaction id, from
        // `latest_receipt_info` (newest state) and `receipt.in_app` together.
        var newest: [String: (item: ReceiptAnswer.Item, purchased: Date, order: Int)] = [:]
        var transactionIDs: [String: Set<String>] = [:]
        let items = (answer.latest_receipt_info ?? []) + (receipt.in_app ?? [])
        for (order, item) in items.enumerated() {
            guard let originalID = item.original_transaction_id, !originalID.isEmpty, item.product_id?.isEmpty == false else { continue }
            if let id = item.transaction_id, !id.isEmpty { transactionIDs[originalID, default: []].insert(id) }
            let purchased = try date(item.purchase_date_ms, "purchase_date_ms") ?? .distantPast
            // On a tie the earlier item wins: `latest_receipt_info` comes first and is the newer state.
            if let current = newest[originalID], current.purchased >= purchased { continue }
            newest[originalID] = (item, purchased, order)
        }
        let purchases = try newest.values
            .sorted { $0.purchased != $1.purchased ? $0.purchased > $1.purchased : $0.order < $1.order }
            .map { entry in
                var purchase = try purchase(
                    entry.item, renewal: answer.pending_renewal_info?.first { $0.original_transaction_id == entry.item.original_transaction_id },
                    environment: environmentName, bundleID: bundleID, requestDate: requestDate)
                purchase.transactionIDs = transactionIDs[purchase.originalTransactionID] ?? []
                return purchase
            }
        guard var first = purchases.first else {
            throw AppStoreError.receipt(.init(.noPurchase, "the receipt holds no in-app purchase"))
        }
        first.otherPurchases = Array(purchases.dropFirst())
        return first
    }

    /// One purchase of the receipt: its newest item and its `pending_renewal_info` entry.
    private static func purchase(
        _ item: ReceiptAnswer.Item, renewal: ReceiptAnswer.PendingRenewal?, environment: String, bundleID: String, requestDate: Date?
    ) throws -> VerifiedReceipt {
        VerifiedReceipt(
            environment: environment, bundleID: bundleID, productID: item.product_id ?? "",
            originalTransactionID: item.original_transaction_id ?? "", transactionID: item.transaction_id,
            purchaseDate: try date(item.purchase_date_ms, "purchase_date_ms"),
            expiresDate: try date(item.expires_date_ms, "expires_date_ms"),
            cancellationDate: try date(item.cancellation_date_ms, "cancellation_date_ms"),
            cancellationReason: item.cancellation_reason, inAppOwnershipType: item.in_app_ownership_type,
            isTrialPeriod: item.is_trial_period == "true",
            autoRenewStatus: renewal?.auto_renew_status.flatMap { Int($0) },
            autoRenewProductID: renewal?.auto_renew_product_id,
            isInBillingRetryPeriod: renewal?.is_in_billing_retry_period.map { $0 == "1" },
            gracePeriodExpiresDate: try date(renewal?.grace_period_expires_date_ms, "grace_period_expires_date_ms"),
            requestDate: requestDate)
    }

    /// A `*_ms` string member as a date.
    private static func date(_ text: String?, _ name: String) throws -> Date? {
        guard let text else { return nil }
        guard let milliseconds = Int64(text) else {
            throw UpstreamError(service: "app_store", kind: .invalidResponse, message: "verifyReceipt \(name) is not a number of milliseconds")
        }
        return Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)
    }
}

/// The members of a `verifyReceipt` answer that Tollgate reads (Apple's snake_case names).
private struct ReceiptAnswer: Decodable {
    struct Item: Decodable {
        let product_id: String?
        let original_transaction_id: String?
        let transaction_id: String?
        let purchase_date_ms: String?
        let expires_date_ms: String?
        let cancellation_date_ms: String?
        let cancellation_reason: String?
        let in_app_ownership_type: String?
        let is_trial_period: String?
    }
    struct Receipt: Decodable {
        let bundle_id: String?
        let request_date_ms: String?
        let in_app: [Item]?
    }
    struct PendingRenewal: Decodable {
        let original_transaction_id: String?
        let auto_renew_status: String?
        let auto_renew_product_id: String?
        let is_in_billing_retry_period: String?
        let grace_period_expires_date_ms: String?
    }
    let status: Int
    let environment: String?
    let receipt: Receipt?
    let latest_receipt_info: [Item]?
    let pending_renewal_info: [PendingRenewal]?
}
