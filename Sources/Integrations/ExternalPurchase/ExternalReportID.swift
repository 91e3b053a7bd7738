/// An id Tollgate gives a reported purchase event: Apple's `lineItemId` and Google's
/// `externalTransactionId` (and partial `refundId`). Made from our own purchase ids, never from
/// anything personal.
///
/// The rules are the stricter of the two platforms': Google's `externalTransactionId` is 1–63
/// characters of `a-zA-Z0-9_-` (androidpublisher.v3.json, `createexternaltransaction`); Apple's
/// `lineItemId` is at most 128 characters, unique per app. The alphabet has no `@` or `.`, so
/// an email address can never be one.
public struct ExternalReportID: Sendable, Hashable, CustomStringConvertible {
    /// The id as sent.
    public let value: String

    /// The longest id Google accepts.
    public static let maximumLength = 63

    /// Wraps `value`.
    /// - Throws: `UpstreamError.invalidReport` when it is empty, longer than 63 characters
    ///   or has a character outside `a-zA-Z0-9_-`.
    public init(_ value: String) throws {
        guard Self.isValid(value) else {
            throw UpstreamError.invalidReport(
                "report id \"\(value.prefix(80))\" must be 1–63 characters of a-z, A-Z, 0-9, _ and - (Google's externalTransactionId rule)")
        }
        self.value = value
    }

    /// Whether `value` is 1–63 characters of `a-zA-Z0-9_-`.
    public static func isValid(_ value: String) -> Bool {
        let bytes = value.utf8
        guard !bytes.isEmpty, bytes.count <= maximumLength else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default:
                false
            }
        }
    }

    public var description: String { value }
}
