import Domain
import Foundation
import JSON

/// A one-time product purchase as `purchases.products.get` returns it (`ProductPurchase`).
public struct GooglePlayProductPurchase: Sendable, Equatable {
    /// `purchaseState`: 0 purchased, 1 canceled, 2 pending.
    public enum PurchaseState: Sendable, Hashable {
        case purchased, canceled, pending
        /// A value this code does not know, or none.
        case other(Int?)

        /// Reads the wire value.
        public init(wireValue: Int?) {
            switch wireValue {
            case 0: self = .purchased
            case 1: self = .canceled
            case 2: self = .pending
            default: self = .other(wireValue)
            }
        }
    }

    /// `purchaseState`.
    public var purchaseState: PurchaseState
    /// `acknowledgementState`: 0 yet to be acknowledged, 1 acknowledged.
    public var acknowledgementState: Int?
    /// `consumptionState`: 0 yet to be consumed, 1 consumed.
    public var consumptionState: Int?
    /// `obfuscatedExternalAccountId`: what the app set at purchase.
    public var obfuscatedExternalAccountID: String?
    /// `orderId`.
    public var orderID: String?
    /// `purchaseTimeMillis` as sent (an int64 string).
    public var purchaseTimeMillis: String?
    /// `purchaseTimeMillis` as a date.
    public var purchaseTime: Date?
    /// `productId` ("may not be present" per Google).
    public var productID: String?
    /// `purchaseType`: 0 test (license tester), 1 promo, 2 rewarded; absent for normal purchases.
    public var purchaseType: Int?
    /// `quantity` (1 when absent, per Google).
    public var quantity: Int?
    /// `regionCode`: the ISO 3166-1 billing country.
    public var regionCode: String?

    /// Parses a `ProductPurchase` JSON object.
    /// - Throws: `UpstreamError(.invalidResponse)` when it is not one.
    public init(json: [UInt8]) throws {
        guard let object = GoogleJSON.object(json) else {
            throw UpstreamError(service: GooglePlayClient.service, kind: .invalidResponse, message: "the product purchase is not a JSON object")
        }
        purchaseState = PurchaseState(wireValue: object["purchaseState"]?.intOrDecimal)
        acknowledgementState = object["acknowledgementState"]?.intOrDecimal
        consumptionState = object["consumptionState"]?.intOrDecimal
        obfuscatedExternalAccountID = object["obfuscatedExternalAccountId"]?.nonEmptyString
        orderID = object["orderId"]?.nonEmptyString
        purchaseTimeMillis = object["purchaseTimeMillis"]?.int64OrDecimal.map(String.init)
        purchaseTime = GoogleTimestamp.fromMilliseconds(object["purchaseTimeMillis"])
        productID = object["productId"]?.nonEmptyString
        purchaseType = object["purchaseType"]?.intOrDecimal
        quantity = object["quantity"]?.intOrDecimal
        regionCode = object["regionCode"]?.nonEmptyString
    }

    /// Whether the purchase is acknowledged.
    public var isAcknowledged: Bool { acknowledgementState == 1 }

    /// Whether this purchase must still be acknowledged: purchased and not acknowledged.
    public var needsAcknowledgement: Bool { purchaseState == .purchased && !isAcknowledged }

    /// Whether a license tester made it (`purchaseType` 0).
    public var isTestPurchase: Bool { purchaseType == 0 }

    /// The purchase status:
    ///
    /// | `purchaseState`   | `PurchaseStatus` | access          |
    /// |-------------------|------------------|-----------------|
    /// | 0 purchased       | `.active`        | forever         |
    /// | 1 canceled        | `.revoked`       | none            |
    /// | 2 pending         | `.pending`       | none (not paid) |
    /// | other / missing   | `.pending`       | none            |
    public var status: PurchaseStatus {
        switch purchaseState {
        case .purchased: .active
        case .canceled: .revoked
        case .pending, .other: .pending
        }
    }

    /// The domain's view: keyed by `purchaseToken`, no expiry, `ownerHint` = the obfuscated
    /// account id, `transactionID` = `orderId`, environment `test` for tester purchases.
    public func snapshot(productID: String, purchaseToken: String, observedAt: Date) -> PurchaseSnapshot {
        PurchaseSnapshot(
            platform: .playStore, externalID: purchaseToken, productID: productID, status: status, expiresAt: nil,
            environment: isTestPurchase ? "test" : "production", observedAt: observedAt,
            ownerHint: obfuscatedExternalAccountID, transactionID: orderID)
    }
}
