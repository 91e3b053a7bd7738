import Foundation
import HTTPCore
import HTTPRouting
import JSON
import UseCases

/// The inputs of `POST /receipts`, validated: the platform from `X-PLATFORM-TYPE`, the app user,
/// the store's reference for the purchase, and the attribution from `ply_context`.
struct ReceiptsRequest {
    typealias Source = RecordReceipt.Source

    private struct Body: Decodable {
        let userId: String
        let storeProductId: String?
        let originalTransactionId: String?
        let receiptData: String?
        let purchaseToken: String?
        let stripeObjectType: String?
        let stripeObjectId: String?
        let stripePriceId: String?
        let plyContext: String?
    }

    let userID: String
    let source: Source
    /// The attribution stored on the purchase: `ply_context` members as `ply_<key>`, JSON text.
    let attribution: String?

    /// - Throws: `APIError`: 400 for a missing or unknown `X-PLATFORM-TYPE`, a missing field, or
    ///   both `original_transaction_id` and `receipt_data` (Purchasely's docs make them exclusive),
    ///   `422 unsupported_platform` for `APPGALLERY`, `422 unsupported_object_type` for a Stripe
    ///   object other than a subscription.
    init(_ request: HTTPRequest, _ requestContext: RequestContext) throws {
        let platform = (request.headers["X-PLATFORM-TYPE"] ?? "").trimmingCharacters(in: .whitespaces).uppercased()
        switch platform {
        case "APP_STORE", "PLAY_STORE", "STRIPE": break
        case "APPGALLERY":
            throw APIError.unprocessable("AppGallery purchases are not supported by this service.", code: "unsupported_platform")
        case "":
            throw APIError.badRequest("Send X-PLATFORM-TYPE: APP_STORE, PLAY_STORE or STRIPE.")
        default:
            throw APIError.badRequest("X-PLATFORM-TYPE must be APP_STORE, PLAY_STORE or STRIPE.")
        }
        let body = try request.decodeJSON(Body.self, requestContext)
        func present(_ value: String?) -> String? {
            value.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        guard let user = present(body.userId) else {
            throw APIError.badRequest("user_id must be 1 to \(AppUserIDInput.maxBytes) characters on one line.")
        }
        userID = try AppUserIDInput.require(user, field: "user_id")
        switch platform {
        case "APP_STORE":
            switch (present(body.originalTransactionId), present(body.receiptData)) {
            case (let transaction?, nil): source = .appStoreTransaction(transaction, productID: present(body.storeProductId))
            case (nil, let receipt?): source = .appStoreReceipt(receipt, productID: present(body.storeProductId))
            case (_?, _?):
                throw APIError.badRequest("Send original_transaction_id or receipt_data, not both: they are exclusive.")
            case (nil, nil):
                throw APIError.badRequest("An App Store receipt needs original_transaction_id or receipt_data.")
            }
        case "PLAY_STORE":
            guard let token = present(body.purchaseToken), let product = present(body.storeProductId) else {
                throw APIError.badRequest("A Play Store receipt needs purchase_token and store_product_id.")
            }
            source = .playStore(token: token, productID: product)
        default:
            guard let id = present(body.stripeObjectId) else {
                throw APIError.badRequest("A Stripe receipt needs stripe_object_id.")
            }
            let inferred = id.hasPrefix("sub_") ? "subscription" : id.hasPrefix("cs_") ? "checkout_session" : ""
            let price = present(body.stripePriceId)
            let product = present(body.storeProductId)
            switch present(body.stripeObjectType)?.lowercased() ?? inferred {
            case "subscription": source = .stripeSubscription(id, priceID: price, productID: product)
            case "checkout_session": source = .stripeCheckoutSession(id, priceID: price, productID: product)
            default:
                throw APIError.unprocessable(
                    "stripe_object_type must be subscription (sub_...) or checkout_session (cs_...).", code: "unsupported_object_type")
            }
        }
        if let encoded = present(body.plyContext) {
            let context = try CheckoutStartRequest.decodePlyContext(encoded).map { (key: "ply_" + $0.key, value: JSONValue.string($0.value)) }
            attribution = String(decoding: JSONValue.object(context).keysSorted.serialized(), as: UTF8.self)
        } else {
            attribution = nil
        }
    }
}
