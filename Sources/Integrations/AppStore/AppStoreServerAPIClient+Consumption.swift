import Foundation
import JSON

extension AppStoreServerAPIClient {
    /// Apple's `deliveryStatus` values (App Store Server API 1.19+).
    public enum DeliveryStatus: String, Sendable, CaseIterable {
        case delivered = "DELIVERED"
        case undeliveredQualityIssue = "UNDELIVERED_QUALITY_ISSUE"
        case undeliveredWrongItem = "UNDELIVERED_WRONG_ITEM"
        case undeliveredServerOutage = "UNDELIVERED_SERVER_OUTAGE"
        case undeliveredOther = "UNDELIVERED_OTHER"
    }

    /// Answers a `CONSUMPTION_REQUEST` with Send Consumption Information: `PUT
    /// /inApps/v2/transactions/consumption/{transactionId}` with the `ConsumptionRequest` body
    /// `{"customerConsented": true, "deliveryStatus", "sampleContentProvided"}` (no
    /// `consumptionPercentage`, no `refundPreference`), on the host of `environment`. Apple answers `202`.
    /// - Throws: `AppStoreError.api` (`.requestRejected`, Apple's 4xx with its `errorCode`: the
    ///   request will not succeed again), `AppStoreError.configuration` (401), `UpstreamError`
    ///   (unreachable, 429, 5xx: retry).
    public func sendConsumptionInformation(
        transactionID: String, deliveryStatus: DeliveryStatus, sampleContentProvided: Bool, environment: AppStoreEnvironment
    ) async throws {
        try Self.checkTransactionID(transactionID)
        let body = JSONValue.object([
            ("customerConsented", .bool(true)), ("deliveryStatus", .string(deliveryStatus.rawValue)),
            ("sampleContentProvided", .bool(sampleContentProvided))
        ]).serialized()
        let response = try await send(
            "PUT", environment == .production ? productionBaseURL : sandboxBaseURL, path: "/inApps/v2/transactions/consumption/" + transactionID,
            body: body, environment: environment)
        guard response.status == 202 || response.status == 200 else { try Self.throwForStatus(response, environment: environment) }
    }
}
