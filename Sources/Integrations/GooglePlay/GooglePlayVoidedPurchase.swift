import Foundation
import JSON

/// One entry of `purchases.voidedpurchases.list` (the discovery document's `VoidedPurchase`):
/// a one-time purchase, subscription purchase or subscription renewal that was canceled,
/// refunded or charged back.
///
/// Google writes the int64 fields (`voidedTimeMillis`, `purchaseTimeMillis`) as strings and the
/// int32 ones (`voidedSource`, `voidedReason`, `voidedQuantity`) as numbers; both forms are read.
public struct GooglePlayVoidedPurchase: Sendable, Equatable {
    /// `purchaseToken`: the purchase (a subscription's renewals share it).
    public let purchaseToken: String
    /// `orderId`: the order voided (one per subscription renewal).
    public let orderID: String?
    /// `voidedTimeMillis`: when the purchase was canceled, refunded or charged back.
    public let voidedTime: Date
    /// `purchaseTimeMillis`: when the voided purchase was made.
    public let purchaseTime: Date?
    /// `voidedSource`: 0 user, 1 developer, 2 Google.
    public let voidedSource: Int?
    /// `voidedReason`: 0 other, 1 remorse, 2 not received, 3 defective, 4 accidental purchase,
    /// 5 fraud, 6 friendly fraud, 7 chargeback, 8 unacknowledged purchase.
    public let voidedReason: Int?
    /// `kind` (`androidpublisher#voidedPurchase`).
    public let kind: String?
    /// `voidedQuantity`: set only on a quantity-based partial refund (returned only when asked
    /// with `includeQuantityBasedPartialRefund`, which this client never sends).
    public let voidedQuantity: Int?
    /// As the RTDN `refundType`: a `refundType` member if Google ever sends one (the published
    /// schema has none), else 2 (quantity-based partial refund) when `voidedQuantity` is set,
    /// else nil: a full void.
    public let refundType: Int?

    /// Creates an entry (tests; the client parses them with `init(json:)`).
    public init(
        purchaseToken: String, orderID: String?, voidedTime: Date, purchaseTime: Date? = nil, voidedSource: Int? = nil,
        voidedReason: Int? = nil, kind: String? = "androidpublisher#voidedPurchase", voidedQuantity: Int? = nil, refundType: Int? = nil
    ) {
        self.purchaseToken = purchaseToken
        self.orderID = orderID
        self.voidedTime = voidedTime
        self.purchaseTime = purchaseTime
        self.voidedSource = voidedSource
        self.voidedReason = voidedReason
        self.kind = kind
        self.voidedQuantity = voidedQuantity
        self.refundType = refundType
    }

    /// Reads one `VoidedPurchase` object.
    /// - Throws: `UpstreamError(.invalidResponse)` without a `purchaseToken` or a readable `voidedTimeMillis`.
    init(json object: JSONValue) throws {
        func invalid(_ why: String) -> UpstreamError {
            UpstreamError(service: GooglePlayClient.service, kind: .invalidResponse, message: "a voided purchase \(why)")
        }
        guard let token = object["purchaseToken"]?.nonEmptyString else { throw invalid("has no purchaseToken") }
        guard let voidedTime = GoogleTimestamp.fromMilliseconds(object["voidedTimeMillis"]) else {
            throw invalid("has no readable voidedTimeMillis")
        }
        let quantity = object["voidedQuantity"]?.intOrDecimal
        self.init(
            purchaseToken: token, orderID: object["orderId"]?.nonEmptyString, voidedTime: voidedTime,
            purchaseTime: GoogleTimestamp.fromMilliseconds(object["purchaseTimeMillis"]),
            voidedSource: object["voidedSource"]?.intOrDecimal, voidedReason: object["voidedReason"]?.intOrDecimal,
            kind: object["kind"]?.nonEmptyString, voidedQuantity: quantity,
            refundType: object["refundType"]?.intOrDecimal ?? (quantity == nil ? nil : 2))
    }
}
