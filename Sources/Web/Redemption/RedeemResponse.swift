import Foundation
import Domain
import HTTPServer

/// The JSON of `POST /api/v1/redeem` (API.md "Redemption"), one shape per status.
enum RedeemResponse {
    static func success(_ redeemed: RedeemOutcome.Redeemed, appUserID: String, catalog: EntitlementCatalog, now: @autoclosure () -> Date) -> HTTPResponse {
        let purchase = redeemed.purchase
        return .json { json in
            json.string("status", redeemed.isEntitled ? "success" : "expired_subscription")
            json.string("code", redeemed.code.display)
            writeRedemptionInfo(purchase, appUserID: appUserID, catalog: catalog, now: now(), into: &json)
            json.object("account") { account in
                account.string("id", redeemed.account.id)
                account.string("obfuscated_account_id", redeemed.account.obfuscatedID)
                account.string("email", redeemed.account.email)
                account.bool("email_verified", redeemed.account.emailVerified)
            }
            json.bool("account_switched", redeemed.accountSwitched)
            json.object("session") { session in
                session.string("access_token", redeemed.tokens.accessToken)
                session.string("refresh_token", redeemed.tokens.refreshToken)
                session.int("expires_in", redeemed.tokens.expiresIn)
            }
        }
    }

    /// `redemption_info`: purchaser, purchase and the entitlements it grants.
    static func writeRedemptionInfo(_ purchase: Purchase, appUserID: String?, catalog: EntitlementCatalog, now: Date, into json: inout JSONWriter) {
        json.object("redemption_info") { info in
            info.object("purchaser_info") { purchaser in
                purchaser.string("app_user_id", purchase.appUserID ?? appUserID)
                purchaser.string("email", purchase.purchaserEmail)
                purchaser.string("stripe_customer_id", purchase.platform == .stripe ? purchase.customerID : nil)
            }
            writePurchase(purchase, into: &info)
            info.array("entitlements", catalog.entitlements(for: [purchase], at: now)) { json, entitlement in
                json.object { item in
                    item.string("id", entitlement.id)
                    item.string("expires_at", entitlement.expiresAt.map(Timestamp.rfc3339))
                    item.bool("active", entitlement.active)
                }
            }
        }
    }

    static func writePurchase(_ purchase: Purchase, into json: inout JSONWriter) {
        json.object("purchase") { item in
            item.string("platform", purchase.platform.rawValue)
            item.string("product_id", purchase.productID)
            let isSubscription = purchase.platform != .stripe || purchase.externalID.hasPrefix("sub_")
            item.string("subscription_id", isSubscription ? purchase.externalID : nil)
            if purchase.platform == .stripe && purchase.externalID.hasPrefix("pi_") {
                item.string("payment_intent_id", purchase.externalID)
            }
            item.string("status", purchase.status.rawValue)
            item.string("expires_at", purchase.expiresAt.map(Timestamp.rfc3339))
        }
    }

    static func invalid(_ code: String) -> HTTPResponse {
        .json { json in
            json.string("status", "invalid_code")
            json.string("code", code)
        }
    }

    static func expired(_ code: String, resent: Bool, email: String?) -> HTTPResponse {
        .json { json in
            json.string("status", "expired_code")
            json.string("code", code)
            json.object("expired") { expired in
                expired.bool("resent", resent)
                expired.string("obfuscated_email", email.map(EmailMask.mask))
            }
        }
    }

    static func belongsToOtherUser(_ code: String) -> HTTPResponse {
        .json { json in
            json.string("status", "purchase_belongs_to_other_user")
            json.string("code", code)
        }
    }

    static func error(_ code: String, message: String) -> HTTPResponse {
        .json { json in
            json.string("status", "error")
            json.string("code", code)
            json.object("error") { $0.string("message", message) }
        }
    }
}
