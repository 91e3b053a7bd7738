import Domain
import HTTPCore
import HTTPRouting
import UseCases

/// The JSON of `POST /api/v1/redeem` (API.md "Redemption"), one shape per status. The
/// response's `outcome` is the status, so failures count toward the client's limit.
enum RedeemResponse {
    static let invalidOutcome = "invalid_code"
    /// A secret that is not one bound to the app user: counted as a failure (guessing).
    static let secretMismatchOutcome = "secret_mismatch"

    static func json(_ result: RedeemCode.Result, appUserID: String) -> HTTPResponse {
        let code = result.sentCode
        var response: HTTPResponse
        switch result.answer {
        case .redeemed(let redeemed, let entitlements):
            let answer = RedeemedJSON(
                isEntitled: redeemed.isEntitled, code: redeemed.code.display, purchase: redeemed.purchase, appUserID: appUserID,
                entitlements: entitlements, accountSwitched: redeemed.accountSwitched, proof: redeemed.tokens.map { (redeemed.account, $0) })
            response = .json(capacity: RedeemedJSON.typicalSize) { answer.write(into: &$0) }
            response.outcome = redeemed.isEntitled ? "success" : "expired_subscription"
        case .invalidCode:
            response = status(invalidOutcome, code)
        case .belongsToOtherUser:
            response = status("purchase_belongs_to_other_user", code)
        case .secretMismatch:
            // Linked nothing: the install's secret is not one bound to this app user.
            response = .json { json in
                json.string("status", "error")
                json.string("code", code)
                json.object("error") {
                    $0.string("message", "This install's app_user_secret is not one bound to this app user: sign in, then redeem again.")
                }
                json.bool("session_required", true)
                json.bool("secret_mismatch", true)
            }
            response.outcome = secretMismatchOutcome
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
