/// The one error type for Apple's App Store: signed data that does not verify, the Server API or
/// `verifyReceipt` refusing a transaction or receipt, settings the App Store cannot work with, and
/// an external purchase token (Apple's External Purchase API) Tollgate cannot use. Outages are not
/// `AppStoreError`s but `UpstreamError(service: "app_store")`. Each case carries the details
/// callers branch on; the text is the case's own.
public enum AppStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// App Store signed data (a JWS transaction, renewal info or notification) was refused.
    case verification(Verification)
    /// The App Store Server API rejected a request about a transaction.
    case api(API)
    /// The legacy `verifyReceipt` endpoint rejected the receipt, or it is not for this app.
    case receipt(Receipt)
    /// Root certificates that cannot be read, or API credentials the App Store rejects.
    case configuration(Configuration)
    /// An external purchase token the app sent that is not Apple's format or not for this app.
    case externalPurchaseToken(ExternalToken)

    /// The verification failure, when this is one.
    public var verificationError: Verification? { if case .verification(let error) = self { error } else { nil } }
    /// The Server API's refusal, when this is one.
    public var apiError: API? { if case .api(let error) = self { error } else { nil } }
    /// `verifyReceipt`'s refusal, when this is one.
    public var receiptError: Receipt? { if case .receipt(let error) = self { error } else { nil } }
    /// The configuration problem, when this is one.
    public var configurationError: Configuration? { if case .configuration(let error) = self { error } else { nil } }
    /// The unusable external purchase token, when this is one.
    public var tokenError: ExternalToken? { if case .externalPurchaseToken(let error) = self { error } else { nil } }

    /// The text of the case's details, unchanged from what each said on its own.
    public var description: String {
        switch self {
        case .verification(let error): error.description
        case .api(let error): error.description
        case .receipt(let error): error.description
        case .configuration(let error): error.description
        case .externalPurchaseToken(let error): error.description
        }
    }
}
