import Foundation
import JSON

/// Reports purchases made outside Google Play Billing through the Play Developer API's
/// `externaltransactions` (androidpublisher.v3.json): `createexternaltransaction`
/// (`POST …/applications/{package}/externalTransactions?externalTransactionId=ID`),
/// `getexternaltransaction` (`GET …/externalTransactions/{ID}`) and `refundexternaltransaction`
/// (`POST …/externalTransactions/{ID}:refund`). Google wants each within 24 hours.
///
/// It shares `play`'s service-account tokens (a 401 refreshes the token once). The
/// `externalTransactionId` is ours (the event id), so a resend is safe: Google answers a repeated
/// create with `409 ALREADY_EXISTS`, and this client reads the transaction back and returns
/// `.alreadyReported` when it is the same purchase.
public struct GooglePlayExternalTransactionsClient: Sendable {
    /// The Play client whose package, API base and tokens are used.
    public let play: GooglePlayClient

    /// A client for `play`'s app.
    public init(play: GooglePlayClient) { self.play = play }

    /// Reports a buy, a subscription's first period or a renewal. A first purchase
    /// (`oneTimeBuy`, `subscriptionStart`) carries `token`; a renewal names its first period
    /// (`initialExternalTransactionId`) and ignores `token`.
    /// - Throws: `UpstreamError.report` (`.invalidReport` before sending; `.rejected` for Google's
    ///   4xx with its `error.status`, or an id already used for another purchase);
    ///   `GooglePlayError` (`.unauthorized`, `.permissionDenied`, `.tokenRejected`: configuration);
    ///   `UpstreamError` (`play_store`) when unreachable, 429, 5xx or unreadable.
    public func create(
        _ event: ExternalPurchaseEvent, token: GooglePlayExternalTransactionToken?, program: GooglePlayExternalProgram = .none
    ) async throws -> GooglePlayExternalTransactionOutcome {
        let body = try Self.createBody(event, token: token, program: program)
        let response = try await play.call(
            "POST", ["externalTransactions"], query: [("externalTransactionId", event.id.value)], body: body)
        switch response.status {
        case 200..<300:
            return .reported(try GooglePlayExternalTransaction(json: response.body))
        case 409:
            let conflict = Self.rejection(response, what: "external transaction \(event.id)")
            guard let existing = try await transaction(id: event.id) else { throw conflict }
            let preTax = try ExternalReportAmount.micros(event.amount.preTaxMinorUnits, currency: event.amount.currency)
            guard existing.originalPreTaxAmount == .init(micros: preTax, currency: event.amount.currency) else {
                throw UpstreamError(
                    report: .init(
                        kind: .rejected, service: GooglePlayClient.service, httpStatus: 409, code: conflict.reportError?.code,
                        message:
                            "externalTransactionId \(event.id) already names another transaction (\(existing.originalPreTaxAmount.micros) micros \(existing.originalPreTaxAmount.currency))"
                    ))
            }
            return .alreadyReported(existing)
        default:
            throw Self.failure(response, what: "external transaction \(event.id)")
        }
    }

    /// The transaction reported as `id`, or nil when Google has none (404).
    /// - Throws: as `create(_:token:program:)`.
    public func transaction(id: ExternalReportID) async throws -> GooglePlayExternalTransaction? {
        let response = try await play.call("GET", ["externalTransactions", id.value])
        switch response.status {
        case 200..<300: return try GooglePlayExternalTransaction(json: response.body)
        case 404: return nil
        default: throw Self.failure(response, what: "external transaction \(id)")
        }
    }

    /// Reports the refund `event` of the transaction it names: `fullRefund` when nothing of it
    /// remains, else a `partialRefund` with the event's id as `refundId`. When Google refuses a
    /// resend, reading the transaction back decides: fully refunded (`TRANSACTION_CANCELED`), or
    /// for a partial refund its current pre-tax amount no more than what should remain, is
    /// `.alreadyReported`.
    /// - Throws: as `create(_:token:program:)`; `.rejected` with 404 when Google has no such transaction.
    public func refund(_ event: ExternalPurchaseEvent) async throws -> GooglePlayExternalTransactionOutcome {
        let body = try Self.refundBody(event)
        guard case .refund(let refunded, let remaining) = event.kind else { throw UpstreamError.invalidReport("not a refund") }
        let response = try await play.call("POST", ["externalTransactions", refunded.value], suffix: ":refund", body: body)
        switch response.status {
        case 200..<300:
            return .reported(try GooglePlayExternalTransaction(json: response.body))
        case 400, 409, 412:
            let refusal = Self.rejection(response, what: "refund \(event.id) of \(refunded)")
            guard let existing = try await transaction(id: refunded) else { throw refusal }
            let expected = try ExternalReportAmount.micros(remaining, currency: event.amount.currency)
            let done = remaining == 0 ? existing.isCanceled : (existing.currentPreTaxAmount.map { $0.micros <= expected } ?? false)
            guard done else { throw refusal }
            return .alreadyReported(existing)
        default:
            throw Self.failure(response, what: "refund \(event.id) of \(refunded)")
        }
    }

    /// The error a non-2xx answer stands for.
    static func failure(_ response: OutboundResponse, what: String) -> any Error {
        switch response.status {
        case 403:
            let detail = GoogleJSON.apiErrorSummary(response.body).map { ": \($0)" } ?? ""
            return GooglePlayError(
                .permissionDenied,
                "the service account may not report this app's external transactions (403)\(detail). Grant it the financial-data permission in Play Console"
            )
        case 429, 500...:
            return UpstreamError(
                service: GooglePlayClient.service, kind: .badStatus(response.status),
                message: "the Play Developer API answered \(response.status) for the \(what)")
        case 400..<500:
            return rejection(response, what: what)
        default:
            return UpstreamError(
                service: GooglePlayClient.service, kind: .badStatus(response.status),
                message: "the Play Developer API answered an unexpected \(response.status) for the \(what)")
        }
    }

    /// Google's refusal `{"error": {"code", "message", "status"}}` as an `UpstreamError.report`.
    static func rejection(_ response: OutboundResponse, what: String) -> UpstreamError {
        let error = GoogleJSON.object(response.body)?["error"]?.objectValue
        let message = error?["message"]?.nonEmptyString.map { ": " + $0.prefix(300) } ?? ""
        return UpstreamError(
            report: .init(
                kind: .rejected, service: GooglePlayClient.service, httpStatus: response.status,
                code: error?["status"]?.nonEmptyString.map { String($0.prefix(60)) },
                message: "Google Play refused the \(what) (\(response.status))\(message)"))
    }
}
