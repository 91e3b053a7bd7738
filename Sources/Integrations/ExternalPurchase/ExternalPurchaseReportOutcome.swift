/// How a sent report ended, both meaning "Apple has it".
public enum ExternalPurchaseReportOutcome: Sendable, Equatable {
    /// Apple answered 200 (`SendReportSuccessResponse`) with our `requestIdentifier`.
    case accepted
    /// Apple refused it as a duplicate of a report it already accepted with this
    /// `requestIdentifier` (a resend after a lost answer), and reading it back confirmed it.
    case alreadyReported(RetrievedExternalPurchaseReport)
}

/// A report as Retrieve External Purchase Report returns it (`RetrieveReportSuccessResponse.report`).
public struct RetrievedExternalPurchaseReport: Sendable, Equatable {
    /// `requestIdentifier`.
    public let requestIdentifier: String
    /// `externalPurchaseId`.
    public let externalPurchaseID: String
    /// `status` as Apple wrote it (`LINE_ITEM`, `NO_LINE_ITEM`, `UNRECOGNIZED_TOKEN`...).
    public let status: String
    /// The `lineItemId` of each line item, in order.
    public let lineItemIDs: [String]
    /// The report object's JSON as Apple sent it.
    public let json: [UInt8]

    /// Creates a retrieved report.
    public init(requestIdentifier: String, externalPurchaseID: String, status: String, lineItemIDs: [String], json: [UInt8]) {
        self.requestIdentifier = requestIdentifier
        self.externalPurchaseID = externalPurchaseID
        self.status = status
        self.lineItemIDs = lineItemIDs
        self.json = json
    }
}
