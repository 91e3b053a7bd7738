/// The one error type for Stripe: a webhook that does not verify, a Stripe object that cannot be
/// read, Stripe refusing a request, or a request Tollgate refuses to send. Outages are not
/// `StripeError`s but `UpstreamError(service: "stripe")`. Each case carries the details callers
/// branch on; the text is the case's own.
public enum StripeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A webhook rejected before anything was stored (the web layer answers `400`).
    case webhook(Webhook)
    /// A Stripe object or event that is not the JSON we expect (`400` for a webhook).
    case decoding(Decoding)
    /// Stripe answered 4xx with its error body; retrying the same request will not help.
    case api(API)
    /// A request Tollgate refused to send, because Stripe would reject it or the client is misconfigured.
    case request(Request)

    /// The webhook failure, when this is one.
    public var webhookError: Webhook? { if case .webhook(let error) = self { error } else { nil } }
    /// The decoding failure, when this is one.
    public var decodingError: Decoding? { if case .decoding(let error) = self { error } else { nil } }
    /// Stripe's refusal, when this is one.
    public var apiError: API? { if case .api(let error) = self { error } else { nil } }
    /// The refused request, when this is one.
    public var requestError: Request? { if case .request(let error) = self { error } else { nil } }

    /// The text of the case's details, unchanged from what each said on its own.
    public var description: String {
        switch self {
        case .webhook(let error): error.description
        case .decoding(let error): error.description
        case .api(let error): error.description
        case .request(let error): error.description
        }
    }
}
