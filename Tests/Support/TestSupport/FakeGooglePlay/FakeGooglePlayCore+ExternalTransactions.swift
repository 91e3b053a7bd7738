import Foundation
import HTTPCore
import HTTPRouting
import Synchronization

extension FakeGooglePlayCore {
    /// One external transaction Google holds.
    struct ExternalTransactionRecord: Sendable {
        var id: String
        var currency: String
        var preTaxMicros: Int64
        var taxMicros: Int64
        var currentPreTaxMicros: Int64
        var currentTaxMicros: Int64
        var transactionTime: String
        var createTime: String
        var regionCode: String
        var administrativeArea: String?
        var isRecurring: Bool
        var initialID: String?
        var subscriptionType: String?
        var testPurchase: Bool
        var canceled = false
        var refundIDs: Set<String> = []
        var programCode: Int64?
        /// `externalContentLinkDetails` or `externalOfferDetails` and its JSON, echoed back.
        var details: (key: String, json: [UInt8])?
    }

    /// The external transactions part of the fake's state.
    struct ExternalState: Sendable {
        var tokens: [String: Bool] = [:]
        var transactions: [String: ExternalTransactionRecord] = [:]
        var requests: [FakeGooglePlay.ExternalTransactionRequest] = []
        var forcedFailures: [Int] = []
        var failAfterAccepting = 0
    }

    /// `…/externalTransactions` (create), `…/externalTransactions/{id}` (get) and `…:refund`.
    func externalTransactionsEndpoint(_ request: HTTPRequest, path: [String], action: String?) -> HTTPResponse {
        let id = path.count == 2 ? path[1] : request.queryParameter("externalTransactionId") ?? ""
        let response: HTTPResponse
        var lost = false
        if let forced = external.withLock({ $0.forcedFailures.isEmpty ? nil : $0.forcedFailures.removeFirst() }) {
            response =
                forced == 429
                ? Self.googleError(429, "Resource has been exhausted (e.g. check quota).", reason: "rateLimitExceeded", status: "RESOURCE_EXHAUSTED")
                : Self.googleError(forced, "Internal error encountered.", reason: "backendError", status: forced == 503 ? "UNAVAILABLE" : "INTERNAL")
        } else {
            switch (request.method, path.count, action) {
            case (.post, 1, nil): response = createExternalTransaction(id: id, body: request.body)
            case (.get, 2, nil): response = getExternalTransaction(id: id)
            case (.post, 2, "refund"): response = refundExternalTransaction(id: id, body: request.body)
            default: response = Self.googleError(404, "Not Found", reason: "notFound", status: "NOT_FOUND")
            }
            if response.status.code == 200, request.method == .post {
                lost = external.withLock { state in
                    guard state.failAfterAccepting > 0 else { return false }
                    state.failAfterAccepting -= 1
                    return true
                }
            }
        }
        let answered = lost ? Self.googleError(500, "Internal error encountered.", reason: "backendError", status: "INTERNAL") : response
        external.withLock {
            $0.requests.append(
                .init(
                    method: request.method.rawValue, externalTransactionID: id, action: action, body: request.body, status: answered.status.code,
                    responseBody: answered.body))
        }
        return answered
    }

    static func invalidArgument(_ message: String) -> HTTPResponse {
        googleError(400, message, reason: "badRequest", status: "INVALID_ARGUMENT")
    }

    private func getExternalTransaction(id: String) -> HTTPResponse {
        guard let record = external.withLock({ $0.transactions[id] }) else {
            return Self.googleError(404, "External transaction not found.", reason: "notFound", status: "NOT_FOUND")
        }
        return Self.externalTransactionJSON(record, packageName: packageName)
    }

    private func createExternalTransaction(id: String, body: [UInt8]) -> HTTPResponse {
        guard FakeGooglePlay.isExternalTransactionID(id) else {
            return Self.invalidArgument("externalTransactionId must be 1-63 characters of a-zA-Z0-9_-.")
        }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            return Self.invalidArgument("Invalid JSON payload received.")
        }
        let known = external.withLock { $0 }
        let parsed = Self.parseCreate(object, known: known)
        guard case .success(var record) = parsed else {
            if case .failure(let failure) = parsed { return failure.response }
            return Self.invalidArgument("Invalid request.")
        }
        record.id = id
        record.createTime = Self.rfc3339(now())
        return external.withLock { state in
            if state.transactions[id] != nil {
                return Self.googleError(409, "Requested entity already exists", reason: "alreadyExists", status: "ALREADY_EXISTS")
            }
            state.transactions[id] = record
            return Self.externalTransactionJSON(record, packageName: packageName)
        }
    }

    private func refundExternalTransaction(id: String, body: [UInt8]) -> HTTPResponse {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            return Self.invalidArgument("Invalid JSON payload received.")
        }
        if let unknown = object.keys.sorted().first(where: { !["refundTime", "fullRefund", "partialRefund"].contains($0) }) {
            return Self.invalidArgument("Invalid JSON payload received. Unknown name \"\(unknown)\": Cannot find field.")
        }
        guard let time = object["refundTime"] as? String, Self.isRFC3339(time) else {
            return Self.invalidArgument("refundTime is required and must be an RFC 3339 timestamp.")
        }
        let full = object["fullRefund"]
        let partial = object["partialRefund"]
        guard (full == nil) != (partial == nil) else { return Self.invalidArgument("Exactly one of fullRefund and partialRefund is required.") }
        if let full, (full as? [String: Any])?.isEmpty != true { return Self.invalidArgument("fullRefund must be an empty object.") }
        return external.withLock { state -> HTTPResponse in
            guard var record = state.transactions[id] else {
                return Self.googleError(404, "External transaction not found.", reason: "notFound", status: "NOT_FOUND")
            }
            guard !record.canceled else {
                return Self.googleError(
                    400, "The transaction has already been fully refunded.", reason: "failedPrecondition", status: "FAILED_PRECONDITION")
            }
            if partial == nil {
                record.currentPreTaxMicros = 0
                record.currentTaxMicros = 0
                record.canceled = true
            } else {
                guard let partial = partial as? [String: Any], let refundID = partial["refundId"] as? String, !refundID.isEmpty else {
                    return Self.invalidArgument("partialRefund.refundId is required.")
                }
                guard let price = Self.price(partial["refundPreTaxAmount"]) else {
                    return Self.invalidArgument("partialRefund.refundPreTaxAmount must be a Price with currency and priceMicros.")
                }
                guard price.currency == record.currency else { return Self.invalidArgument("The refund currency must be the transaction's.") }
                guard !record.refundIDs.contains(refundID) else {
                    return Self.googleError(
                        400, "A refund with this refundId was already made.", reason: "failedPrecondition", status: "FAILED_PRECONDITION")
                }
                guard price.micros > 0, price.micros <= record.currentPreTaxMicros else {
                    return Self.invalidArgument("The refund pre-tax amount must be positive and at most the remaining pre-tax amount.")
                }
                record.refundIDs.insert(refundID)
                record.currentPreTaxMicros -= price.micros
                record.currentTaxMicros = record.preTaxMicros == 0 ? 0 : record.taxMicros * record.currentPreTaxMicros / record.preTaxMicros
                record.canceled = record.currentPreTaxMicros == 0
            }
            state.transactions[id] = record
            return Self.externalTransactionJSON(record, packageName: packageName)
        }
    }

    /// A `Price` object of the schema (only `currency` and `priceMicros`, the micros an int64 string).
    static func price(_ value: Any?) -> (currency: String, micros: Int64)? {
        guard let object = value as? [String: Any], Set(object.keys).isSubset(of: ["currency", "priceMicros"]),
            let currency = object["currency"] as? String, currency.utf8.count == 3,
            currency.utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }),
            let text = object["priceMicros"] as? String, let micros = Int64(text), micros >= 0
        else { return nil }
        return (currency, micros)
    }

    static func isRFC3339(_ text: String) -> Bool {
        text.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$"#, options: .regularExpression) != nil
    }

    /// The `ExternalTransaction` Google answers for `record` (input-only fields left out).
    static func externalTransactionJSON(_ record: ExternalTransactionRecord, packageName: String) -> HTTPResponse {
        func price(_ micros: Int64) -> [String: Any] { ["currency": record.currency, "priceMicros": String(micros)] }
        var address: [String: Any] = ["regionCode": record.regionCode]
        if let area = record.administrativeArea { address["administrativeArea"] = area }
        var object: [String: Any] = [
            "packageName": packageName, "externalTransactionId": record.id, "originalPreTaxAmount": price(record.preTaxMicros),
            "originalTaxAmount": price(record.taxMicros), "currentPreTaxAmount": price(record.currentPreTaxMicros),
            "currentTaxAmount": price(record.currentTaxMicros), "transactionTime": record.transactionTime, "createTime": record.createTime,
            "transactionState": record.canceled ? "TRANSACTION_CANCELED" : "TRANSACTION_REPORTED", "userTaxAddress": address
        ]
        if record.isRecurring {
            var recurring: [String: Any] = [:]
            if let initial = record.initialID { recurring["initialExternalTransactionId"] = initial }
            if let type = record.subscriptionType { recurring["externalSubscription"] = ["subscriptionType": type] }
            object["recurringTransaction"] = recurring
        } else {
            object["oneTimeTransaction"] = [String: Any]()
        }
        if record.testPurchase { object["testPurchase"] = [String: Any]() }
        if let code = record.programCode { object["transactionProgramCode"] = code }
        if let details = record.details, let json = try? JSONSerialization.jsonObject(with: Data(details.json)) { object[details.key] = json }
        return .fakeJSON(object)
    }
}
