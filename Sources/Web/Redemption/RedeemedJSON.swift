import Domain
import UseCases

/// The answer for a redeemed code, written in one place for both routes that give it:
/// `POST /api/v1/redeem` (`success`, `expired_subscription`) and the `result` of a completed
/// checkout polled by a caller that proved the account (`GET /api/v1/checkout/{id}`).
/// openapi.json describes it once, as the `Redeemed` schema.
struct RedeemedJSON {
    /// `success` when the purchase grants access now, else `expired_subscription`.
    let isEntitled: Bool
    /// The code in display form; nil (left out) when a polled checkout's code can no longer be redeemed.
    let code: String?
    let purchase: Purchase
    /// The app user the caller named.
    let appUserID: String?
    let entitlements: [Entitlement]
    let accountSwitched: Bool
    /// The account and a fresh session, only for a caller that proved the account holding the
    /// purchase; without them the answer says `session_required` and leaves out the purchaser.
    let proof: (account: Account, tokens: SessionTokens)?

    /// About 800 bytes with a purchase, an account and a session.
    static let typicalSize = 1024

    func write(into json: inout JSONWriter) {
        json.string("status", isEntitled ? "success" : "expired_subscription")
        if let code { json.string("code", code) }
        PurchaseJSON.writeRedemptionInfo(purchase, appUserID: appUserID, entitlements: entitlements, proved: proof != nil, into: &json)
        json.bool("account_switched", accountSwitched)
        if let proof {
            PurchaseJSON.writeAccount(proof.account, into: &json)
            PurchaseJSON.writeSession(proof.tokens, into: &json)
        } else {
            json.bool("session_required", true)
        }
    }
}
