import Domain
import Foundation
import Integrations

/// Sends link-out reports to Apple's External Purchase Server API: a report with the lines of
/// one payment or refund made under the token, or, for a token that led to nothing, a
/// `NO_LINE_ITEM` report (`UNRECOGNIZED_TOKEN` for one Apple told of that Tollgate never kept). Its `requestIdentifier` is the report's stored `request_id`, so a
/// resend is the same report (the client confirms one Apple already has).
public struct AppleLinkOutReportSender: LinkOutReportSender {
    let client: ExternalPurchaseReportClient

    public init(client: ExternalPurchaseReportClient) { self.client = client }

    /// - Throws: `UpstreamError.report` (the report is unusable or Apple refused it),
    ///   `AppStoreError.configuration`, `UpstreamError` (see `ExternalPurchaseReportClient.send`).
    public func send(_ report: LinkOutReportStore.Claimed, _ context: LinkOutReportContext) async throws {
        _ = try await client.send(try Self.report(report, context))
    }

    /// The Apple report for `report`.
    /// - Throws: `UpstreamError.invalidReport` for a token without its `externalPurchaseId`,
    ///   a `request_id` that is not a UUID, or a line Apple cannot take.
    static func report(_ report: LinkOutReportStore.Claimed, _ context: LinkOutReportContext) throws -> ExternalPurchaseReport {
        guard let purchaseID = context.tokenRecord.externalID else {
            throw UpstreamError.invalidReport("token \(context.tokenRecord.id) has no externalPurchaseId")
        }
        guard let requestIdentifier = UUID(uuidString: report.requestID) else {
            throw UpstreamError.invalidReport("report \(report.id): request_id \(report.requestID) is not a UUID")
        }
        if report.kind == .unrecognized {
            return try .unrecognizedToken(requestIdentifier: requestIdentifier, externalPurchaseID: purchaseID)
        }
        if report.kind == .noPurchase || report.lines.isEmpty {
            return try .noLineItem(requestIdentifier: requestIdentifier, externalPurchaseID: purchaseID)
        }
        let events = try report.lines.map {
            try $0.externalEvent(storefront: context.tokenRecord.storefront, firstLineID: context.firstPaymentLineID)
        }
        return try .lineItems(requestIdentifier: requestIdentifier, externalPurchaseID: purchaseID, events: events)
    }
}
