import Foundation
import JSON

/// An external transaction as the Play Developer API returns it (`ExternalTransaction` of
/// androidpublisher.v3.json): what Google recorded for one of our reports.
public struct GooglePlayExternalTransaction: Sendable, Equatable {
    /// A `Price`: micros of `currency`.
    public struct Price: Sendable, Equatable {
        /// `priceMicros`.
        public let micros: Int64
        /// `currency`.
        public let currency: String

        /// A price.
        public init(micros: Int64, currency: String) {
            self.micros = micros
            self.currency = currency
        }
    }

    /// `externalTransactionId`.
    public let externalTransactionID: String
    /// `originalPreTaxAmount`.
    public let originalPreTaxAmount: Price
    /// `originalTaxAmount`.
    public let originalTaxAmount: Price
    /// `currentPreTaxAmount` (after refunds), when sent.
    public let currentPreTaxAmount: Price?
    /// `currentTaxAmount` (after refunds), when sent.
    public let currentTaxAmount: Price?
    /// `transactionTime`.
    public let transactionTime: Date
    /// `transactionState`: `TRANSACTION_REPORTED` or `TRANSACTION_CANCELED` (fully refunded).
    public let state: String?
    /// Whether `testPurchase` is present (Google charges nothing).
    public let isTestPurchase: Bool
    /// Whether it is a `recurringTransaction`.
    public let isRecurring: Bool
    /// `recurringTransaction.initialExternalTransactionId`, when sent.
    public let initialExternalTransactionID: String?
    /// `userTaxAddress.regionCode`.
    public let regionCode: String?

    /// Whether Google holds it as fully refunded.
    public var isCanceled: Bool { state == "TRANSACTION_CANCELED" }

    /// Decodes Google's answer.
    /// - Throws: `UpstreamError` (`play_store`, `.invalidResponse`) naming the member that is missing or wrong.
    init(json: [UInt8]) throws {
        func invalid(_ what: String) -> UpstreamError {
            UpstreamError(service: GooglePlayClient.service, kind: .invalidResponse, message: "external transaction answer: \(what)")
        }
        func price(_ value: JSONValue?) -> Price? {
            guard let object = value?.objectValue, let currency = object["currency"]?.nonEmptyString else { return nil }
            // Proto3 JSON omits a zero priceMicros.
            guard let micros = object["priceMicros"] == nil ? 0 : object["priceMicros"]?.int64OrDecimal else { return nil }
            return Price(micros: micros, currency: currency)
        }
        guard let object = GoogleJSON.object(json) else { throw invalid("not a JSON object") }
        guard let id = object["externalTransactionId"]?.nonEmptyString else { throw invalid("no externalTransactionId") }
        guard let preTax = price(object["originalPreTaxAmount"]), let tax = price(object["originalTaxAmount"]) else {
            throw invalid("originalPreTaxAmount or originalTaxAmount is not a Price")
        }
        guard let timeText = object["transactionTime"]?.nonEmptyString, let time = GoogleTimestamp.parse(timeText) else {
            throw invalid("transactionTime is not RFC 3339")
        }
        let recurring = object["recurringTransaction"]?.objectValue
        externalTransactionID = id
        originalPreTaxAmount = preTax
        originalTaxAmount = tax
        currentPreTaxAmount = price(object["currentPreTaxAmount"])
        currentTaxAmount = price(object["currentTaxAmount"])
        transactionTime = time
        state = object["transactionState"]?.nonEmptyString
        isTestPurchase = object["testPurchase"] != nil
        isRecurring = recurring != nil
        initialExternalTransactionID = recurring?["initialExternalTransactionId"]?.nonEmptyString
        regionCode = object["userTaxAddress"]?["regionCode"]?.nonEmptyString
    }
}

/// How a create or refund call ended, both meaning "Google has it".
public enum GooglePlayExternalTransactionOutcome: Sendable, Equatable {
    /// Google accepted it now; the transaction as it answered.
    case reported(GooglePlayExternalTransaction)
    /// Google already had it (a resend after a lost answer), confirmed by reading it back.
    case alreadyReported(GooglePlayExternalTransaction)

    /// The transaction either way.
    public var transaction: GooglePlayExternalTransaction {
        switch self {
        case .reported(let transaction), .alreadyReported(let transaction): transaction
        }
    }
}
