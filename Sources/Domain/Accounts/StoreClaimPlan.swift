/// API.md's four-way table for accounts from in-app purchases (`/api/v1/iap/apple|google`):
/// signed in or not × customer email or not, with `B` the account that already holds the
/// purchase. A pure decision, applied by `ClaimStorePurchase` in one transaction.
public enum StoreClaimPlan: Sendable, Equatable {
    /// Signed in as `account`: the other-user decision, and whether `account` takes the email
    /// (unconfirmed, with a confirmation mail).
    case signedIn(account: String, decision: OtherUserDecision, claimEmail: Bool)
    /// Not signed in, `B` holds it: a login for `B`; the email becomes an address request on `B`
    /// (a confirmation mail; `B` keeps a confirmed address until then) only when the claim
    /// proved `B` (seed 004; issue 43 item 3), else `B` is not touched.
    case holder(String, claimEmail: Bool)
    /// Not signed in, nobody holds it, an email given: a new account asking for that email.
    case createWithEmail
    /// Not signed in, nobody holds it, no email: a new account with a generated username and
    /// no password (nobody chose one), no mail.
    case createAnonymous

    /// The plan for a claim.
    /// - Parameters:
    ///   - signedIn: the bearer's account, if any.
    ///   - holder: the account that holds the purchase now, if any.
    ///   - hasEmail: whether customer details carry an email.
    ///   - claimProvesHolder: whether the claim proves the holder (a receipt, a signed transaction,
    ///     a Play token; not a bare transaction id).
    public static func decide(
        signedIn: String?, holder: String?, hasEmail: Bool, claimProvesHolder: Bool, policy: OtherUserPolicy
    ) -> StoreClaimPlan {
        if let signedIn {
            return .signedIn(account: signedIn, decision: policy.decide(holder: holder, claimant: signedIn, canSwitch: true), claimEmail: hasEmail)
        }
        if let holder { return .holder(holder, claimEmail: hasEmail && claimProvesHolder) }
        return hasEmail ? .createWithEmail : .createAnonymous
    }
}
