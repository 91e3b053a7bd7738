import Foundation
import Storage

/// The `data` of events: who (account, app users), what (purchase) and where from (attribution).
/// Built from stored rows only; never a code, token, password or email address.
enum EventData {
    /// `account_id`, `obfuscated_account_id`, `app_user_ids` (nulls and `[]` without an account).
    static func account(_ accountID: String?, on connection: Connection) throws -> [String: Any] {
        guard let accountID, let account = try AccountRepository.find(id: accountID, on: connection) else {
            return ["account_id": NSNull(), "obfuscated_account_id": NSNull(), "app_user_ids": [String]()]
        }
        return [
            "account_id": account.id, "obfuscated_account_id": account.obfuscatedID,
            "app_user_ids": try AccountRepository.appUserIDs(accountID: account.id, on: connection)
        ]
    }

    /// `purchase: {id, platform, product_id, status, expires_at, external_id}`, plus
    /// `stripe_customer_id` (Stripe) and `attribution` beside it.
    static func purchase(_ purchase: Purchase) -> [String: Any] {
        var data: [String: Any] = [
            "purchase": [
                "id": purchase.id, "platform": purchase.platform.rawValue, "product_id": purchase.productID,
                "status": purchase.status.rawValue, "expires_at": purchase.expiresAt.map(Timestamp.rfc3339) ?? NSNull(),
                "external_id": externalID(purchase) ?? NSNull()
            ] as [String: Any]
        ]
        if purchase.platform == .stripe { data["stripe_customer_id"] = purchase.customerID ?? NSNull() }
        data["attribution"] = attribution(purchase.attribution) ?? NSNull()
        return data
    }

    /// The store's id for the purchase: Stripe subscription or payment intent, Apple original
    /// transaction id. A Play purchase token is a credential, never sent (Play's order id is not
    /// stored yet), so Play purchases carry null.
    static func externalID(_ purchase: Purchase) -> String? {
        purchase.platform == .playStore ? nil : purchase.externalID
    }

    /// The stored attribution as an object: `ply_context` (the paywall's context, its members
    /// without the `ply_` prefix they are stored under), `utm_*`, `campaign_*` and other custom
    /// parameters as they came, `conversion_details` as the app sent it.
    static func attribution(_ text: String?) -> [String: Any]? {
        guard let text, let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any], !object.isEmpty else {
            return nil
        }
        var result: [String: Any] = [:]
        var plyContext: [String: Any] = [:]
        for (key, value) in object {
            if key.hasPrefix("ply_") {
                plyContext[String(key.dropFirst(4))] = value
            } else {
                result[key] = value
            }
        }
        if !plyContext.isEmpty { result["ply_context"] = plyContext }
        return result
    }

    /// `entitlements: [{id, active, expires_at}]`: what the account's purchases and manual grants give now.
    static func entitlements(accountID: String, catalog: EntitlementCatalog, on connection: Connection, now: Date) throws -> [[String: Any]] {
        catalog.entitlements(
            for: try PurchaseRepository.forAccount(accountID, on: connection),
            manual: try ManualEntitlementRepository.active(accountID: accountID, on: connection, now: now), at: now
        ).map { entitlement in
            ["id": entitlement.id, "active": entitlement.active, "expires_at": entitlement.expiresAt.map(Timestamp.rfc3339) ?? NSNull()]
        }
    }
}
