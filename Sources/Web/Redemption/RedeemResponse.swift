import Domain
import HTTPCore
import HTTPRouting
import UseCases

/// The JSON of `POST /api/v1/redeem` (API.md "Redemption"), one shape per status. The
/// response's `outcome` is the status, so failures count toward the client's limit.
enum RedeemResponse {
    static let invalidOutcome = "invalid_code"

    static func json(_ result: RedeemCode.Result, appUserID: String) -> HTTPResponse {
        let code = result.sentCode
        var response: HTTPResponse
        switch result.answer {
        case .redeemed(let redeemed, let entitlements):
            // About 800 bytes with a purchase, an account and a session.
            response = .json(capacity: 1024) { json in
                json.string("status", redeemed.isEntitled ? "success" : "expired_subscription")
                json.string("code", redeemed.code.display)
                PurchaseJSON.writeRedemptionInfo(redeemed.purchase, appUserID: appUserID, entitlements: entitlements, into: &json)
                PurchaseJSON.writeAccount(redeemed.account, into: &json)
                json.bool("account_switched", redeemed.accountSwitched)
                PurchaseJSON.writeSession(redeemed.tokens, into: &json)
            }
            response.outcome = redeemed.isEntitled ? "success" : "expired_subscription"
        case .invalidCode:
            response = status(invalidOutcome, code)
        case .belongsToOtherUser:
            response = status("purchase_belongs_to_other_user", code)
        case .expiredCode(let resent, let email):
            response = .json { json in
                json.string("status", "expired_code")
                json.string("code", code)
                json.object("expired") { expired in
                    expired.bool("resent", resent)
                    expired.string("obfuscated_email", email.map(EmailMask.mask))
                }
            }
            response.outcome = "expired_code"
        case .error(let message):
            response = .json { json in
                json.string("status", "error")
                json.string("code", code)
                json.object("error") { $0.string("message", message) }
            }
            response.outcome = "error"
        }
        return response
    }

    private static func status(_ status: String, _ code: String) -> HTTPResponse {
        var response = HTTPResponse.json { json in
            json.string("status", status)
            json.string("code", code)
        }
        response.outcome = status
        return response
    }
}
