import Crypto
import Foundation
import HTTPCore
import HTTPRouting
import JSON
import Synchronization

/// A fake App Store on a loopback port: the App Store Server API's Get Transaction Info
/// (`GET /inApps/v1/transactions/{id}`), Get All Subscription Statuses
/// (`GET /inApps/v1/subscriptions/{id}`, `FakeAppStoreServer+Subscriptions.swift`), Get
/// Notification History (`POST /inApps/v1/notifications/history`,
/// `FakeAppStoreServer+History.swift`) and the legacy `POST /verifyReceipt`, for production under
/// `/production` and for the sandbox under `/sandbox` (so `productionBaseURL` and
/// `sandboxBaseURL` differ as the real hosts do). The rules its answers keep are in README.md.
///
/// Like Apple it checks the bearer JWT of API calls (ES256 signature with `credentials.publicKey`,
/// header `alg` ES256, `kid`, `typ` JWT; claims `iss`, `aud` `appstoreconnect-v1`, `bid`, `iat`
/// not in the future, `exp` not past and at most 60 min after `iat`) and answers 401
/// `Unauthenticated` otherwise (the reason is kept in `authenticationFailures`). Unknown
/// transactions get Apple's 404 `{"errorCode": 4040010, ...}`.
///
/// `verifyReceipt` answers HTTP 200 with a `status` like Apple: a receipt registered for the other
/// environment gets 21007 (sandbox receipt sent to production) or 21008 (production receipt sent
/// to the sandbox), a wrong `password` 21004, an unknown receipt 21002.
public final class FakeAppStoreServer: Sendable {
    /// Which App Store.
    public enum Environment: String, Sendable, CaseIterable {
        case production, sandbox
    }

    /// What the fake expects in API tokens.
    public struct Credentials: Sendable {
        public var issuerID: String
        public var keyID: String
        public var bundleID: String
        /// The public half of the `.p8` key the client signs with.
        public var publicKey: VerificationKey

        /// Credentials for `bundleID`.
        public init(issuerID: String, keyID: String, bundleID: String, publicKey: VerificationKey) {
            self.issuerID = issuerID
            self.keyID = keyID
            self.bundleID = bundleID
            self.publicKey = publicKey
        }
    }

    /// One `verifyReceipt` answer: a status and, for status 0, the decoded receipt.
    public struct ReceiptAnswer: Sendable {
        /// The whole JSON body answered.
        public var body: JSONValue

        /// An answer with only `status` (e.g. 21002, 21005, 21100).
        public static func status(_ status: Int) -> ReceiptAnswer {
            var members: [(key: String, value: JSONValue)] = [("status", .integer(Int64(status)))]
            if (21100...21199).contains(status) { members.append(("is-retryable", true)) }
            return ReceiptAnswer(body: .object(members))
        }

        /// A valid (status 0) answer with one `latest_receipt_info` item and one `receipt.in_app`
        /// item per purchase given, in the shape Apple answers (all numbers as strings).
        public static func valid(
            bundleID: String, environment: String, purchases: [ReceiptPurchase],
            requestDate: Date = Date(timeIntervalSince1970: 1_700_000_000)
        ) -> ReceiptAnswer {
            receipt(bundleID: bundleID, environment: environment, latestReceiptInfo: purchases, inApp: purchases, requestDate: requestDate)
        }

        /// A valid (status 0) answer with these `latest_receipt_info` items (with
        /// `exclude-old-transactions`, Apple's: the latest transaction of each subscription) and
        /// `receipt.in_app` items (every purchase the receipt was made with, non-consumables and
        /// earlier periods included); `pending_renewal_info` has an entry for each subscription of
        /// `latestReceiptInfo` with an `autoRenewStatus`.
        public static func receipt(
            bundleID: String, environment: String, latestReceiptInfo: [ReceiptPurchase], inApp: [ReceiptPurchase],
            requestDate: Date = Date(timeIntervalSince1970: 1_700_000_000)
        ) -> ReceiptAnswer {
            func ms(_ date: Date) -> JSONValue { .string(String(Int64((date.timeIntervalSince1970 * 1000).rounded()))) }
            func item(_ purchase: ReceiptPurchase) -> JSONValue {
                var item: [(key: String, value: JSONValue)] = [
                    ("quantity", "1"), ("product_id", .string(purchase.productID)),
                    ("transaction_id", .string(purchase.transactionID)),
                    ("original_transaction_id", .string(purchase.originalTransactionID)),
                    ("purchase_date_ms", ms(purchase.purchaseDate)),
                    ("original_purchase_date_ms", ms(purchase.originalPurchaseDate ?? purchase.purchaseDate)),
                    ("is_trial_period", .string(purchase.isTrialPeriod ? "true" : "false")),
                    ("in_app_ownership_type", "PURCHASED")
                ]
                if let expires = purchase.expiresDate { item.append(("expires_date_ms", ms(expires))) }
                if let cancelled = purchase.cancellationDate {
                    item.append(("cancellation_date_ms", ms(cancelled)))
                    item.append(("cancellation_reason", "0"))
                }
                return .object(item)
            }
            var renewed: Set<String> = []
            let renewals: [JSONValue] = latestReceiptInfo.reversed().compactMap { purchase in
                guard let autoRenew = purchase.autoRenewStatus, purchase.expiresDate != nil,
                    renewed.insert(purchase.originalTransactionID).inserted
                else { return nil }
                var members: [(key: String, value: JSONValue)] = [
                    ("auto_renew_product_id", .string(purchase.autoRenewProductID ?? purchase.productID)),
                    ("original_transaction_id", .string(purchase.originalTransactionID)),
                    ("product_id", .string(purchase.productID)),
                    ("auto_renew_status", .string(String(autoRenew))),
                    ("is_in_billing_retry_period", .string(purchase.isInBillingRetryPeriod ? "1" : "0"))
                ]
                if let grace = purchase.gracePeriodExpiresDate { members.append(("grace_period_expires_date_ms", ms(grace))) }
                return .object(members)
            }
            return ReceiptAnswer(
                body: .object([
                    ("status", 0), ("environment", .string(environment)),
                    (
                        "receipt",
                        .object([
                            ("receipt_type", .string(environment == "Production" ? "Production" : "ProductionSandbox")),
                            ("bundle_id", .string(bundleID)), ("application_version", "1"),
                            ("request_date_ms", ms(requestDate)), ("in_app", .array(inApp.map(item)))
                        ])
                    ),
                    ("latest_receipt_info", .array(latestReceiptInfo.map(item))), ("pending_renewal_info", .array(renewals)),
                    ("latest_receipt", "MIIFAKE")
                ]))
        }
    }

    /// One purchase inside a valid receipt answer.
    public struct ReceiptPurchase: Sendable {
        public var productID: String
        public var transactionID: String
        public var originalTransactionID: String
        public var purchaseDate: Date
        public var expiresDate: Date?
        public var cancellationDate: Date?
        public var isTrialPeriod: Bool
        /// `pending_renewal_info.auto_renew_status`; nil leaves the purchase out of it.
        public var autoRenewStatus: Int?
        public var isInBillingRetryPeriod: Bool
        /// When the first transaction of the purchase was made; nil means `purchaseDate`.
        public var originalPurchaseDate: Date?
        /// `pending_renewal_info.auto_renew_product_id`; nil means `productID`.
        public var autoRenewProductID: String?
        /// `pending_renewal_info.grace_period_expires_date_ms`.
        public var gracePeriodExpiresDate: Date?

        /// A purchase; by default a renewing subscription.
        public init(
            productID: String = "com.example.monthly", transactionID: String = "1000000000000002",
            originalTransactionID: String = "1000000000000001", purchaseDate: Date = Date(timeIntervalSince1970: 1_700_000_000),
            expiresDate: Date? = nil, cancellationDate: Date? = nil, isTrialPeriod: Bool = false, autoRenewStatus: Int? = 1,
            isInBillingRetryPeriod: Bool = false, originalPurchaseDate: Date? = nil, autoRenewProductID: String? = nil,
            gracePeriodExpiresDate: Date? = nil
        ) {
            self.originalPurchaseDate = originalPurchaseDate
            self.autoRenewProductID = autoRenewProductID
            self.gracePeriodExpiresDate = gracePeriodExpiresDate
            self.productID = productID
            self.transactionID = transactionID
            self.originalTransactionID = originalTransactionID
            self.purchaseDate = purchaseDate
            self.expiresDate = expiresDate
            self.cancellationDate = cancellationDate
            self.isTrialPeriod = isTrialPeriod
            self.autoRenewStatus = autoRenewStatus
            self.isInBillingRetryPeriod = isInBillingRetryPeriod
        }
    }

    /// A transaction the fake signs when asked for it, and whose customer it is.
    struct Stored: Sendable {
        var transaction: FakeAppStoreTransaction
        var signer: FakeAppStoreSigner
        var customer: String
    }

    /// A notification the fake sent: as signed, when, and how the send went.
    struct Sent: Sendable {
        var signedPayload: String
        var sentAt: Date
        var result: String
    }

    struct State: Sendable {
        var transactions: [Environment: [String: String]] = [:]
        var stored: [Environment: [String: Stored]] = [:]
        var renewalInfos: [Environment: [String: (info: FakeAppStoreRenewalInfo, signer: FakeAppStoreSigner)]] = [:]
        var forcedSubscriptionStatus: [Environment: [String: Int]] = [:]
        var sent: [Environment: [Sent]] = [:]
        var paginationTokens: [String: (environment: Environment, start: Int64, end: Int64, offset: Int)] = [:]
        var forcedLookupStatus: [Environment: Int] = [:]
        var receipts: [Environment: [String: ReceiptAnswer]] = [:]
        var authenticationFailures: [String] = []
        var receiptRequests: [(environment: Environment, body: [String: String], excludeOldTransactions: Bool?)] = []
        var consumption: [ConsumptionSeen] = []
    }

    /// Holds the mutable state; a class so that the server's handler closure can share it.
    final class Box: Sendable {
        let state = Mutex(State())
    }

    private let server: FakeHTTPServer
    let box: Box
    /// The customer transactions belong to unless another is named.
    public static let defaultCustomer = "customer-1"
    /// Notification history entries per page.
    public static let historyPageSize = 3

    /// `http://127.0.0.1:PORT/production`: the App Store Server API production base URL.
    public var productionBaseURL: URL { url("/production") }
    /// `http://127.0.0.1:PORT/sandbox`: the sandbox base URL.
    public var sandboxBaseURL: URL { url("/sandbox") }
    /// The production `verifyReceipt` URL.
    public var productionReceiptURL: URL { url("/production/verifyReceipt") }
    /// The sandbox `verifyReceipt` URL.
    public var sandboxReceiptURL: URL { url("/sandbox/verifyReceipt") }

    /// Every request received, in order.
    public var requests: [HTTPRequest] { server.requests }
    /// Why each refused API call was refused (e.g. "exp is more than 60 minutes after iat").
    public var authenticationFailures: [String] { box.state.withLock { $0.authenticationFailures } }
    /// The `verifyReceipt` calls received: environment, string members (`receipt-data`,
    /// `password`) and `exclude-old-transactions`.
    public var receiptRequests: [(environment: Environment, body: [String: String], excludeOldTransactions: Bool?)] {
        box.state.withLock { $0.receiptRequests }
    }

    /// Starts on a free loopback port. `sharedSecret` is the app's shared secret for
    /// `verifyReceipt`; `clock` is the fake's idea of now for token checks.
    /// - Throws: `HTTPServerError` when no port can be bound.
    /// `appAppleID` is the app's Apple id, sent in production answers as Apple does.
    public init(
        credentials: Credentials, sharedSecret: String? = nil, appAppleID: Int? = nil, clock: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        let box = Box()
        self.box = box
        server = try FakeHTTPServer { request in
            Self.respond(to: request, credentials: credentials, sharedSecret: sharedSecret, appAppleID: appAppleID, now: clock(), box: box)
        }
    }

    /// Stops the server.
    public func stop() async { await server.stop() }

    /// Makes `GET /inApps/v1/transactions/{id}` of `environment` answer this signed transaction.
    public func addTransaction(id: String, signedTransactionInfo: String, environment: Environment) {
        box.state.withLock { $0.transactions[environment, default: [:]][id] = signedTransactionInfo }
    }

    /// Serves `transaction` in `environment` as a transaction of `customer`: Get Transaction Info of
    /// its `transactionID` answers it, and when it is an auto-renewable subscription, Get All
    /// Subscription Statuses of any transaction of the customer lists its subscription with its
    /// latest period (the one with the latest `purchaseDate`). Add each period of a subscription
    /// as its own transaction (its own id, `purchaseDate` and `expiresDate`, the same
    /// `originalTransactionID` and `originalPurchaseDate`). Each answer is signed with `signer`
    /// when asked for, with `signedDate` the fake's now.
    /// - Throws: nothing today; kept throwing for callers that signed ahead of time.
    public func addTransaction(
        _ transaction: FakeAppStoreTransaction, signer: FakeAppStoreSigner, environment: Environment, customer: String = defaultCustomer
    ) throws {
        box.state.withLock {
            $0.stored[environment, default: [:]][transaction.transactionID] = Stored(
                transaction: transaction, signer: signer, customer: customer)
        }
    }

    /// Makes every transaction lookup of `environment` answer `status` (429, 500, ...) with
    /// Apple's error body, or answer normally again when nil.
    public func failTransactionLookups(status: Int?, environment: Environment) {
        box.state.withLock { $0.forcedLookupStatus[environment] = status }
    }

    /// Registers a receipt: `verifyReceipt` of `environment` answers `answer` for `receiptData`;
    /// the other environment answers 21007 or 21008 for it.
    public func addReceipt(_ receiptData: String, environment: Environment, answer: ReceiptAnswer) {
        box.state.withLock { $0.receipts[environment, default: [:]][receiptData] = answer }
    }

    private func url(_ path: String) -> URL {
        // The base URL is made from a loopback address and a port: always a valid URL.
        URL(string: server.baseURL + path) ?? URL(fileURLWithPath: "/")
    }

    private static func respond(
        to request: HTTPRequest, credentials: Credentials, sharedSecret: String?, appAppleID: Int?, now: Date, box: Box
    ) -> HTTPResponse {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard let first = parts.first, let environment = Environment(rawValue: first) else {
            return .fakeJSON(["errorCode": 4040000, "errorMessage": "Not found."], status: .notFound)
        }
        let rest = Array(parts.dropFirst())
        if rest == ["verifyReceipt"], request.method == .post {
            return receipt(request, environment: environment, sharedSecret: sharedSecret, box: box)
        }
        guard rest.count >= 3, rest[0] == "inApps", rest[1] == "v1" || rest[1] == "v2" else {
            return .fakeJSON(["errorCode": 4040000, "errorMessage": "Not found."], status: .notFound)
        }
        if let failure = FakeAppStoreToken.check(request.headers["Authorization"], credentials: credentials, now: now) {
            box.state.withLock { $0.authenticationFailures.append(failure) }
            return HTTPResponse(status: .unauthorized, contentType: "text/plain", body: "Unauthenticated\n")
        }
        if let forced = box.state.withLock({ $0.forcedLookupStatus[environment] }) {
            let code = forced == 429 ? 4290000 : forced * 10000
            return .appleError(code: code, message: forced == 429 ? "Rate limit exceeded." : "An unknown error occurred.", status: forced)
        }
        if rest.count == 5, rest[1] == "v2", rest[2] == "transactions", rest[3] == "consumption", request.method == .put {
            return consumption(request, transactionID: rest[4], environment: environment, box: box)
        }
        if rest.count == 4, rest[2] == "transactions", request.method == .get {
            return transactionInfo(rest[3], environment: environment, now: now, box: box)
        }
        if rest.count == 4, rest[2] == "subscriptions", request.method == .get {
            return subscriptionStatuses(rest[3], environment: environment, bundleID: credentials.bundleID, appAppleID: appAppleID, now: now, box: box)
        }
        if rest.count == 4, rest[2] == "notifications", rest[3] == "history", request.method == .post {
            return notificationHistory(request, environment: environment, now: now, box: box)
        }
        return .fakeJSON(["errorCode": 4040000, "errorMessage": "Not found."], status: .notFound)
    }

    /// Get Transaction Info: the transaction, signed now; an unknown one 404 4040010.
    private static func transactionInfo(_ id: String, environment: Environment, now: Date, box: Box) -> HTTPResponse {
        guard isTransactionID(id) else { return .appleError(code: 4000006, message: "Invalid transaction id.", status: 400) }
        let (stored, signed) = box.state.withLock { ($0.stored[environment]?[id], $0.transactions[environment]?[id]) }
        if let stored {
            var transaction = stored.transaction
            transaction.signedDate = now
            guard let jws = try? stored.signer.signTransaction(transaction) else {
                return .appleError(code: 5000000, message: "An unknown error occurred.", status: 500)
            }
            return .fakeJSON(["signedTransactionInfo": jws])
        }
        guard let signed else { return .appleError(code: 4040010, message: "Transaction id not found.", status: 404) }
        return .fakeJSON(["signedTransactionInfo": signed])
    }

    /// Whether `id` is a string of digits, as Apple's transaction ids are.
    static func isTransactionID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    private static func receipt(_ request: HTTPRequest, environment: Environment, sharedSecret: String?, box: Box) -> HTTPResponse {
        guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any] else {
            return .fakeJSON(["status": 21000])
        }
        let strings = object.compactMapValues { $0 as? String }
        let exclude = object["exclude-old-transactions"] as? Bool
        box.state.withLock { $0.receiptRequests.append((environment, strings, exclude)) }
        guard let receiptData = strings["receipt-data"] else { return .fakeJSON(["status": 21002]) }
        let other: Environment = environment == .production ? .sandbox : .production
        let (mine, theirs) = box.state.withLock { ($0.receipts[environment]?[receiptData], $0.receipts[other]?[receiptData]) }
        if mine == nil, theirs != nil {
            return .fakeJSON(["status": environment == .production ? 21007 : 21008])
        }
        guard let answer = mine else { return .fakeJSON(["status": 21002]) }
        if let sharedSecret, strings["password"] != sharedSecret { return .fakeJSON(["status": 21004]) }
        return HTTPResponse(status: .ok, headers: ["Content-Type": "application/json"], body: answer.body.serialized())
    }
}

extension HTTPResponse {
    /// Apple's API error body `{"errorCode": ..., "errorMessage": ...}` with `status`.
    static func appleError(code: Int, message: String, status: Int) -> HTTPResponse {
        .fakeJSON(["errorCode": code, "errorMessage": message], status: HTTPStatus(code: status))
    }
}
