import Crypto
import Foundation
import HTTPCore
import HTTPRouting
import Synchronization

/// A fake App Store on a loopback port: the App Store Server API's
/// `GET /inApps/v1/transactions/{id}` and the legacy `POST /verifyReceipt`, for production under
/// `/production` and for the sandbox under `/sandbox` (so `productionBaseURL` and
/// `sandboxBaseURL` differ as the real hosts do).
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

        /// A valid (status 0) answer with one `latest_receipt_info` item per purchase given, in the
        /// shape Apple answers (all numbers as strings).
        public static func valid(
            bundleID: String, environment: String, purchases: [ReceiptPurchase],
            requestDate: Date = Date(timeIntervalSince1970: 1_700_000_000)
        ) -> ReceiptAnswer {
            func ms(_ date: Date) -> JSONValue { .string(String(Int64((date.timeIntervalSince1970 * 1000).rounded()))) }
            let items: [JSONValue] = purchases.map { purchase in
                var item: [(key: String, value: JSONValue)] = [
                    ("quantity", "1"), ("product_id", .string(purchase.productID)),
                    ("transaction_id", .string(purchase.transactionID)),
                    ("original_transaction_id", .string(purchase.originalTransactionID)),
                    ("purchase_date_ms", ms(purchase.purchaseDate)),
                    ("is_trial_period", .string(purchase.isTrialPeriod ? "true" : "false")),
                    ("in_app_ownership_type", "PURCHASED"),
                ]
                if let expires = purchase.expiresDate { item.append(("expires_date_ms", ms(expires))) }
                if let cancelled = purchase.cancellationDate {
                    item.append(("cancellation_date_ms", ms(cancelled)))
                    item.append(("cancellation_reason", "0"))
                }
                return .object(item)
            }
            let renewals: [JSONValue] = purchases.compactMap { purchase in
                guard let autoRenew = purchase.autoRenewStatus else { return nil }
                return .object([
                    ("auto_renew_product_id", .string(purchase.productID)),
                    ("original_transaction_id", .string(purchase.originalTransactionID)),
                    ("product_id", .string(purchase.productID)),
                    ("auto_renew_status", .string(String(autoRenew))),
                    ("is_in_billing_retry_period", .string(purchase.isInBillingRetryPeriod ? "1" : "0")),
                ])
            }
            return ReceiptAnswer(body: .object([
                ("status", 0), ("environment", .string(environment)),
                ("receipt", .object([
                    ("receipt_type", .string(environment == "Production" ? "Production" : "ProductionSandbox")),
                    ("bundle_id", .string(bundleID)), ("application_version", "1"),
                    ("request_date_ms", ms(requestDate)), ("in_app", .array(items)),
                ])),
                ("latest_receipt_info", .array(items)), ("pending_renewal_info", .array(renewals)),
                ("latest_receipt", "MIIFAKE"),
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

        /// A purchase; by default a renewing subscription.
        public init(
            productID: String = "com.example.monthly", transactionID: String = "1000000000000002",
            originalTransactionID: String = "1000000000000001", purchaseDate: Date = Date(timeIntervalSince1970: 1_700_000_000),
            expiresDate: Date? = nil, cancellationDate: Date? = nil, isTrialPeriod: Bool = false, autoRenewStatus: Int? = 1,
            isInBillingRetryPeriod: Bool = false
        ) {
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

    private struct State: Sendable {
        var transactions: [Environment: [String: String]] = [:]
        var forcedLookupStatus: [Environment: Int] = [:]
        var receipts: [Environment: [String: ReceiptAnswer]] = [:]
        var authenticationFailures: [String] = []
        var receiptRequests: [(environment: Environment, body: [String: String], excludeOldTransactions: Bool?)] = []
    }

    /// Holds the mutable state; a class so that the server's handler closure can share it.
    private final class Box: Sendable {
        let state = Mutex(State())
    }

    private let server: FakeHTTPServer
    private let box: Box

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
    public init(credentials: Credentials, sharedSecret: String? = nil, clock: @escaping @Sendable () -> Date = { Date() }) throws {
        let box = Box()
        self.box = box
        server = try FakeHTTPServer { request in
            Self.respond(to: request, credentials: credentials, sharedSecret: sharedSecret, now: clock(), box: box)
        }
    }

    /// Stops the server.
    public func stop() async { await server.stop() }

    /// Makes `GET /inApps/v1/transactions/{id}` of `environment` answer this signed transaction.
    public func addTransaction(id: String, signedTransactionInfo: String, environment: Environment) {
        box.state.withLock { $0.transactions[environment, default: [:]][id] = signedTransactionInfo }
    }

    /// Signs `transaction` with `signer` and serves it under its `transactionID` in `environment`.
    /// - Throws: `CryptoError` if signing fails.
    public func addTransaction(_ transaction: FakeAppStoreTransaction, signer: FakeAppStoreSigner, environment: Environment) throws {
        addTransaction(id: transaction.transactionID, signedTransactionInfo: try signer.signTransaction(transaction),
                       environment: environment)
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
        to request: HTTPRequest, credentials: Credentials, sharedSecret: String?, now: Date, box: Box
    ) -> HTTPResponse {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard let first = parts.first, let environment = Environment(rawValue: first) else {
            return .fakeJSON(["errorCode": 4040000, "errorMessage": "Not found."], status: .notFound)
        }
        let rest = Array(parts.dropFirst())
        if rest == ["verifyReceipt"], request.method == .post {
            return receipt(request, environment: environment, sharedSecret: sharedSecret, box: box)
        }
        if rest.count == 4, rest[0] == "inApps", rest[1] == "v1", rest[2] == "transactions", request.method == .get {
            if let failure = FakeAppStoreToken.check(request.headers["Authorization"], credentials: credentials, now: now) {
                box.state.withLock { $0.authenticationFailures.append(failure) }
                return HTTPResponse(status: .unauthorized, contentType: "text/plain", body: "Unauthenticated\n")
            }
            let (forced, signed) = box.state.withLock { ($0.forcedLookupStatus[environment], $0.transactions[environment]?[rest[3]]) }
            if let forced {
                let code = forced == 429 ? 4290000 : forced * 10000
                return .appleError(code: code, message: forced == 429 ? "Rate limit exceeded." : "An unknown error occurred.", status: forced)
            }
            guard rest[3].utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
                return .appleError(code: 4000006, message: "Invalid transaction id.", status: 400)
            }
            guard let signed else {
                return .appleError(code: 4040010, message: "Transaction id not found.", status: 404)
            }
            return .fakeJSON(["signedTransactionInfo": signed])
        }
        return .fakeJSON(["errorCode": 4040000, "errorMessage": "Not found."], status: .notFound)
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
    fileprivate static func appleError(code: Int, message: String, status: Int) -> HTTPResponse {
        .fakeJSON(["errorCode": code, "errorMessage": message], status: HTTPStatus(code: status))
    }
}
