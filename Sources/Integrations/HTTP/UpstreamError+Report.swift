extension UpstreamError {
    /// A report to Apple or Google that cannot succeed as it is: ours was invalid (nothing was sent)
    /// or the platform refused it with a 4xx. Sending it again unchanged would fail again, so a
    /// report queue gives up on it (and shows `code` and `message`); outages are the other kinds of
    /// `UpstreamError` (retry when `retryable`), credentials problems `AppStoreError.configuration` or
    /// `GooglePlayError` (retry once the operator fixed the configuration).
    public struct Report: Sendable, Equatable, CustomStringConvertible {
        /// Who refused.
        public enum Kind: String, Sendable, Equatable, CaseIterable {
            /// Tollgate refused the report before sending it (a bad id, currency, amount).
            case invalidReport = "invalid_report"
            /// The platform answered 4xx (other than for our credentials).
            case rejected
        }

        /// One of Apple's line-item errors (`SendReportErrorResponse.errors[]`).
        public struct FieldError: Sendable, Equatable, CustomStringConvertible {
            /// Apple's `errorCode` (e.g. 4 for a missing field).
            public let errorCode: Int
            /// Apple's `errorMessage`.
            public let errorMessage: String
            /// Apple's `fieldName`, when given.
            public let fieldName: String?
            /// The `lineItemId` the error is about, when given.
            public let lineItemID: String?

            /// Creates a field error.
            public init(errorCode: Int, errorMessage: String, fieldName: String?, lineItemID: String?) {
                self.errorCode = errorCode
                self.errorMessage = errorMessage
                self.fieldName = fieldName
                self.lineItemID = lineItemID
            }

            public var description: String {
                "\(errorCode) \(fieldName ?? "-")\(lineItemID.map { " (line item \($0))" } ?? ""): \(errorMessage)"
            }
        }

        /// Who refused.
        public let kind: Kind
        /// `app_store` or `play_store` for `.rejected`; `tollgate` for `.invalidReport`.
        public let service: String
        /// The HTTP status of a `.rejected` answer.
        public let httpStatus: Int?
        /// The platform's code: Apple's `errorCode` (as text) or Google's `error.status` (`INVALID_ARGUMENT`).
        public let code: String?
        /// What was wrong, without secrets.
        public let message: String
        /// Apple's per-field errors, when the answer listed them.
        public let fieldErrors: [FieldError]

        /// Creates an error.
        public init(kind: Kind, service: String, httpStatus: Int? = nil, code: String? = nil, message: String, fieldErrors: [FieldError] = []) {
            self.kind = kind
            self.service = service
            self.httpStatus = httpStatus
            self.code = code
            self.message = message
            self.fieldErrors = fieldErrors
        }

        public var description: String {
            var text = "\(service) \(kind.rawValue)"
            if let httpStatus { text += " \(httpStatus)" }
            if let code { text += " \(code)" }
            text += ": \(message)"
            if !fieldErrors.isEmpty { text += " [" + fieldErrors.map(\.description).joined(separator: "; ") + "]" }
            return text
        }
    }
}

extension UpstreamError {
    /// A report that failed as `report` says (never retryable).
    public init(report: Report) {
        self.init(service: report.service, kind: .report(report), message: report.message)
    }

    /// A report Tollgate refuses to send.
    public static func invalidReport(_ message: String) -> UpstreamError {
        UpstreamError(report: Report(kind: .invalidReport, service: "tollgate", message: message))
    }

    /// The refused report, when this is one.
    public var reportError: Report? {
        if case .report(let report) = kind { return report }
        return nil
    }
}
