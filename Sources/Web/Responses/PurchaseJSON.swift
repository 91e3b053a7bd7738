import Domain
import UseCases

/// The JSON of purchases, accounts and entitlements: one writer for every endpoint that
/// shows them (redeem, checkout poll, store claims, `/receipts`, admin).
enum PurchaseJSON {
    /// `"purchase": {"platform", "product_id", "subscription_id"?, "payment_intent_id"?, "status", "expires_at"}`.
    static func writePurchase(_ purchase: Purchase, into json: inout JSONWriter) {
        json.object("purchase") { item in
            item.string("platform", purchase.platform.rawValue)
            item.string("product_id", purchase.productID)
            // Stripe subscriptions and App Store original transaction ids; a Play purchase token is
            // a credential of its own and is not echoed.
            let isSubscriptionID = purchase.platform == .appStore || purchase.externalID.hasPrefix("sub_")
            if isSubscriptionID { item.string("subscription_id", purchase.externalID) }
            if purchase.platform == .stripe && purchase.externalID.hasPrefix("pi_") {
                item.string("payment_intent_id", purchase.externalID)
            }
            item.string("status", purchase.status.rawValue)
            item.string("expires_at", purchase.expiresAt.map(Timestamp.rfc3339))
            writeRenewal(willRenew: purchase.willRenew, renewsToProductID: purchase.renewsToProductID, into: &item)
            if let offer = purchase.offerType { item.string("offer_type", offer) }
        }
    }

    /// `will_renew` (null while the store has not said) and `renews_to_product_id` (a pending
    /// downgrade or crossgrade), on purchases and entitlements.
    static func writeRenewal(willRenew: Bool?, renewsToProductID: String?, into json: inout JSONWriter) {
        json.optionalBool("will_renew", willRenew)
        if let next = renewsToProductID { json.string("renews_to_product_id", next) }
    }

    /// `redemption_info`: purchaser, purchase and the entitlements it grants. `proved`: whether
    /// the caller proved the account ("Who may act for an account"); else the purchaser's email and
    /// customer are left out (no one's email to a caller that proved nothing).
    static func writeRedemptionInfo(
        _ purchase: Purchase, appUserID: String?, entitlements: [Entitlement], proved: Bool = true, into json: inout JSONWriter
    ) {
        json.object("redemption_info") { info in
            info.object("purchaser_info") { purchaser in
                purchaser.string("app_user_id", proved ? purchase.appUserID ?? appUserID : appUserID)
                purchaser.string("email", proved ? purchase.purchaserEmail : nil)
                purchaser.string("stripe_customer_id", proved && purchase.platform == .stripe ? purchase.customerID : nil)
            }
            writePurchase(purchase, into: &info)
            writeEntitlements(entitlements, withSource: false, into: &info)
        }
    }

    /// `"entitlements": [{"id", "active", "expires_at", "source"?}]`.
    static func writeEntitlements(_ entitlements: [Entitlement], withSource: Bool, into json: inout JSONWriter) {
        json.array("entitlements", entitlements) { json, entitlement in
            json.object { item in
                item.string("id", entitlement.id)
                item.bool("active", entitlement.active)
                item.string("expires_at", entitlement.expiresAt.map(Timestamp.rfc3339))
                if withSource { item.string("source", entitlement.sourceName) }
                writeRenewal(willRenew: entitlement.willRenew, renewsToProductID: entitlement.renewsToProductID, into: &item)
            }
        }
    }

    /// `"session": {"access_token", "refresh_token", "expires_in"}`: the tokens of a success.
    static func writeSession(_ tokens: SessionTokens, into json: inout JSONWriter) {
        json.object("session") { session in
            session.string("access_token", tokens.accessToken)
            session.string("refresh_token", tokens.refreshToken)
            session.int("expires_in", tokens.expiresIn)
        }
    }

    /// `"account": {"id", "obfuscated_account_id", "email", "email_verified"}`.
    static func writeAccount(_ account: Account, into json: inout JSONWriter) {
        json.object("account") { item in
            item.string("id", account.id)
            item.string("obfuscated_account_id", account.obfuscatedID)
            item.string("email", account.email)
            item.bool("email_verified", account.emailVerified)
        }
    }
}
