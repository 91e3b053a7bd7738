/// The external transaction token the Play Billing Library gives the app
/// (`BillingProgramReportingDetails.getExternalTransactionToken()`, earlier
/// `ExternalOfferReportingDetails`), which the first report of a purchase carries.
///
/// Google documents it as an opaque string: it has no published structure to decode, and
/// nothing in it names the package, so only its shape can be checked here; Google checks the
/// rest when the transaction is created.
public struct GooglePlayExternalTransactionToken: Sendable, Hashable {
    /// The token as the app sent it.
    public let value: String

    /// The longest token accepted, in characters.
    public static let maximumLength = 4096

    /// Wraps `value`.
    /// - Throws: `UpstreamError.invalidReport` when it is empty, longer than 4096
    ///   characters, or has a character outside printable ASCII.
    public init(_ value: String) throws {
        guard !value.isEmpty, value.utf8.count <= Self.maximumLength, value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw UpstreamError.invalidReport("an external transaction token is 1–\(Self.maximumLength) printable ASCII characters")
        }
        self.value = value
    }
}
