import Domain
import Foundation
import Integrations

/// Sends link-out reports to Google Play's external transactions: a first payment is created
/// with the token, a renewal with the first payment's `externalTransactionId`, a refund through
/// `:refund` on the transaction it refunds. The transaction id is the report's line id (also its
/// stored `request_id`), so a resend is the same transaction (the client confirms one Google has).
public struct GoogleLinkOutReportSender: LinkOutReportSender {
    let client: GooglePlayExternalTransactionsClient

    public init(client: GooglePlayExternalTransactionsClient) { self.client = client }

    /// - Throws: `UpstreamError.report` (the report is unusable or Google refused it),
    ///   `GooglePlayError`, `UpstreamError` (see `GooglePlayExternalTransactionsClient`).
    public func send(_ report: LinkOutReportStore.Claimed, _ context: LinkOutReportContext) async throws {
        guard report.kind != .noPurchase, report.kind != .unrecognized else {
            throw UpstreamError.invalidReport("report \(report.id): Google takes no report of a token that led to nothing")
        }
        let record = context.tokenRecord
        for line in report.lines {
            let event = try line.externalEvent(storefront: record.storefront, firstLineID: context.firstPaymentLineID)
            switch report.kind {
            case .purchase:
                let token: GooglePlayExternalTransactionToken
                do { token = try GooglePlayExternalTransactionToken(context.token) } catch {
                    throw UpstreamError.invalidReport("token \(record.id) is not a Google Play external transaction token")
                }
                _ = try await client.create(event, token: token, program: try Self.program(record.program))
            case .renewal:
                _ = try await client.create(event, token: nil, program: try Self.program(record.program))
            case .refund:
                _ = try await client.refund(event)
            case .noPurchase, .unrecognized:
                break
            }
        }
    }

    /// The programme fields of `program` (`link_out.rules[].program`): a link to a digital
    /// content offer under the external content links or the external offers programme.
    /// - Throws: `UpstreamError.invalidReport` for a programme Google reports do not belong to.
    static func program(_ program: String) throws -> GooglePlayExternalProgram {
        switch program {
        case "google_external_links":
            return try GooglePlayExternalProgram(
                details: .externalContentLink(linkType: .digitalContentOffer, installedAppPackage: nil, appCategory: nil))
        case "google_external_offers":
            return try GooglePlayExternalProgram(
                details: .externalOffer(
                    linkType: .digitalContentOffer, installedAppPackage: nil, appCategory: nil, appDownloadEventExternalTransactionID: nil))
        default:
            throw UpstreamError.invalidReport("programme \(program) is not reported to Google")
        }
    }
}
