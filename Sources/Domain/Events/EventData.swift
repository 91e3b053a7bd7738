import Foundation
import JSON
import Storage

/// The `data` of events: who (account, app users), what (purchase) and where from (attribution).
/// Built from stored rows only; never a code, token, password or email address.
enum EventData {
    /// `account_id`, `obfuscated_account_id`, `app_user_ids` (nulls and `[]` without an account).
    static func account(_ accountID: String?, on connection: Connection) throws -> [String: JSONValue] {
        guard let accountID, let account = try AccountRepository.find(id: accountID, on: connection) else {
            return ["account_id": .null, "obfuscated_account_id": .null, "app_user_ids": []]
        }
        return [
            "account_id": .string(account.id), "obfuscated_account_id": .string(account.obfuscatedID),
            "app_user_ids": strings(try AccountRepository.appUserIDs(accountID: account.id, on: connection))
        ]
    }

    /// `purchase: {id, platform, product_id, status, expires_at, external_id}`, plus
    /// `stripe_customer_id` (Stripe) and `attribution` beside it.
    static func purchase(_ purchase: Purchase) -> [String: JSONValue] {
        var data: [String: JSONValue] = [
            "purchase": [
                "id": .string(purchase.id), "platform": .string(purchase.platform.rawValue), "product_id": .string(purchase.productID),
                "status": .string(purchase.status.rawValue), "expires_at": text(purchase.expiresAt.map(Timestamp.rfc3339)),
                "external_id": text(externalID(purchase))
            ]
        ]
        if purchase.platform == .stripe { data["stripe_customer_id"] = text(purchase.customerID) }
        data["attribution"] = attribution(purchase.attribution) ?? .null
        return data
    }

    /// The string, or `null`.
    static func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

    /// An array of strings.
    static func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }

    /// The store's id for the purchase: Stripe subscription or payment intent, Apple original
    /// transaction id. A Play purchase token is a credential, never sent (Play's order id is not
    /// stored yet), so Play purchases carry null.
    static func externalID(_ purchase: Purchase) -> String? {
        purchase.platform == .playStore ? nil : purchase.externalID
    }

    /// The stored attribution as an object: `ply_context` (the paywall's context, its members
    /// without the `ply_` prefix they are stored under), `utm_*`, `campaign_*` and other custom
    /// parameters as they came, `conversion_details` as the app sent it.
    /// Values keep their JSON types: `true` stays a boolean, `1` an integer, `"1"` a string.
    static func attribution(_ text: String?) -> JSONValue? {
        guard let text, case .object(let members)? = try? JSONValue.parse(Array(text.utf8)), !members.isEmpty else {
            return nil
        }
        var result: [(key: String, value: JSONValue)] = []
        var plyContext: [(key: String, value: JSONValue)] = []
        for member in members {
            if member.key.hasPrefix("ply_") {
                plyContext.append((String(member.key.dropFirst(4)), member.value))
            } else {
                result.append(member)
            }
        }
        if !plyContext.isEmpty { result.append(("ply_context", .object(plyContext))) }
        return .object(result)
    }

    /// `entitlements: [{id, active, expires_at}]`: what the account's purchases and manual grants give now.
    static func entitlements(accountID: String, catalog: EntitlementCatalog, on connection: Connection, now: Date) throws -> JSONValue {
        .array(
            catalog.entitlements(
                for: try PurchaseRepository.forAccount(accountID, on: connection),
                manual: try ManualEntitlementRepository.active(accountID: accountID, on: connection, now: now), at: now
            ).map { entitlement -> JSONValue in
                [
                    "id": .string(entitlement.id), "active": .bool(entitlement.active),
                    "expires_at": text(entitlement.expiresAt.map(Timestamp.rfc3339))
                ]
            })
    }
}
