import Foundation

/// One report to Apple's External Purchase Server API for one external purchase token
/// (`ExternalPurchaseReport`,
/// https://developer.apple.com/documentation/externalpurchaseserverapi/externalpurchasereport):
/// our `requestIdentifier` (a UUID kept with the token), the token's `externalPurchaseId`, a
/// `status`, and for `LINE_ITEM` the events as line items.
public struct ExternalPurchaseReport: Sendable, Equatable {
    /// Apple's `status`: what the report says about the token.
    public enum Status: String, Sendable, Equatable, CaseIterable {
        /// The token led to purchases; `events` lists them.
        case lineItem = "LINE_ITEM"
        /// The token led to nothing.
        case noLineItem = "NO_LINE_ITEM"
        /// Apple told us of a token (an `EXTERNAL_PURCHASE_TOKEN` notification) we never saw.
        case unrecognizedToken = "UNRECOGNIZED_TOKEN"
    }

    /// Our UUID of the report; resending the same report uses the same one.
    public let requestIdentifier: UUID
    /// The token's `externalPurchaseId` (`SANDBOX…` for sandbox tokens).
    public let externalPurchaseID: String
    /// What the report says.
    public let status: Status
    /// The line items (empty unless `status` is `.lineItem`).
    public let events: [ExternalPurchaseEvent]

    /// The longest `externalPurchaseId` accepted.
    public static let maximumExternalPurchaseIDLength = 128

    private init(requestIdentifier: UUID, externalPurchaseID: String, status: Status, events: [ExternalPurchaseEvent]) throws {
        guard !externalPurchaseID.isEmpty, externalPurchaseID.utf8.count <= Self.maximumExternalPurchaseIDLength,
            externalPurchaseID.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else {
            throw UpstreamError.invalidReport("externalPurchaseId must be 1–128 printable ASCII characters")
        }
        self.requestIdentifier = requestIdentifier
        self.externalPurchaseID = externalPurchaseID
        self.status = status
        self.events = events
    }

    /// A report of the purchases made under the token.
    /// - Throws: `UpstreamError.invalidReport` when `events` is empty, two events share an
    ///   id, or an event cannot be a line item (see `lineItem(_:)`).
    public static func lineItems(requestIdentifier: UUID, externalPurchaseID: String, events: [ExternalPurchaseEvent]) throws -> Self {
        guard !events.isEmpty else { throw UpstreamError.invalidReport("a LINE_ITEM report needs at least one event") }
        guard Set(events.map(\.id)).count == events.count else {
            throw UpstreamError.invalidReport("two events of the report share an id")
        }
        let report = try Self(requestIdentifier: requestIdentifier, externalPurchaseID: externalPurchaseID, status: .lineItem, events: events)
        for event in events { _ = try lineItem(event) }
        return report
    }

    /// A report of a token that led to no purchase.
    /// - Throws: `UpstreamError.invalidReport` for an unusable `externalPurchaseID`.
    public static func noLineItem(requestIdentifier: UUID, externalPurchaseID: String) throws -> Self {
        try Self(requestIdentifier: requestIdentifier, externalPurchaseID: externalPurchaseID, status: .noLineItem, events: [])
    }

    /// A report of a token Apple told us of that we have no record of.
    /// - Throws: `UpstreamError.invalidReport` for an unusable `externalPurchaseID`.
    public static func unrecognizedToken(requestIdentifier: UUID, externalPurchaseID: String) throws -> Self {
        try Self(requestIdentifier: requestIdentifier, externalPurchaseID: externalPurchaseID, status: .unrecognizedToken, events: [])
    }

    /// Whether the token was made in the sandbox (its id begins with `SANDBOX`), so the report
    /// goes to the sandbox host.
    public var isSandbox: Bool { externalPurchaseID.hasPrefix("SANDBOX") }

    /// `requestIdentifier` as Apple's examples write it (lower case).
    public var requestIdentifierString: String { requestIdentifier.uuidString.lowercased() }
}
