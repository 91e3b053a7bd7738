import Domain

/// Sends one claimed report to its platform (Apple's External Purchase Server API, Google's
/// external transactions). What they throw decides what becomes of the report: an
/// `UpstreamError.report` (the report is unusable, or the platform refused it) or a non-retryable
/// `UpstreamError` fails it for an operator to see; anything else (an outage, a configuration
/// an operator can fix) sends it again later.
public protocol LinkOutReportSender: Sendable {
    /// Sends `report`; returns when the platform has accepted it (or already had it).
    func send(_ report: LinkOutReportStore.Claimed, _ context: LinkOutReportContext) async throws
}

/// What a sender needs beside the report: the token itself and the platform ids of the reports
/// this one builds on.
public struct LinkOutReportContext: Sendable, Equatable {
    /// The token the purchase was made under, opened from its box.
    public let token: String
    public let tokenRecord: LinkOutTokenRepository.Token
    /// For a renewal or a refund: the `request_id` of the purchase's first payment report
    /// (for Google, its `externalTransactionId`: a renewal's `initialExternalTransactionId`).
    public let firstPaymentRequestID: String?
    /// For a renewal or a refund: the line id of the purchase's first payment (Apple's
    /// `referenceLineItemId` of a renewal).
    public let firstPaymentLineID: String?
    /// For a refund: the `request_id` of the payment report it refunds (for Google, the
    /// `externalTransactions/{id}:refund` id).
    public let refundedRequestID: String?

    public init(
        token: String, tokenRecord: LinkOutTokenRepository.Token, firstPaymentRequestID: String?, refundedRequestID: String?,
        firstPaymentLineID: String? = nil
    ) {
        self.token = token
        self.tokenRecord = tokenRecord
        self.firstPaymentRequestID = firstPaymentRequestID
        self.firstPaymentLineID = firstPaymentLineID
        self.refundedRequestID = refundedRequestID
    }
}
