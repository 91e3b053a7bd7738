/// The catalog keys that Swift code, not a template, puts on a page: the titles of pages whose
/// title the handler chooses and the texts a handler picks for a case (`templates/locales/`).
/// Every other text is named by its template. The catalog test counts these as used.
public enum PageText: String, CaseIterable, Sendable {
    case titleAccount = "title.account"
    case titleAccountDeleted = "title.account_deleted"
    case titleCheckEmail = "common.check_email"
    case titleSignIn = "common.sign_in"
    case titleConfirmEmail = "title.confirm_email"
    case titleEmailTaken = "email_taken.heading"
    case titleLinkIncomplete = "title.link_incomplete"
    case titleLinkDead = "title.link_dead"
    case titleSignInLinkExpired = "title.sign_in_link_expired"
    case titleSignInLinkDead = "link_expired.sign_in"

    case linkPassword = "link_expired.password"
    case linkConfirmation = "link_expired.confirmation"
    case adviceAppSignIn = "link_expired.advice.app_sign_in"
    case advicePasswordIncomplete = "link_expired.advice.password_incomplete"
    case advicePasswordUsed = "link_expired.advice.password_used"
    case advicePasswordExpired = "link_expired.advice.password_expired"
    case adviceConfirmIncomplete = "link_expired.advice.confirm_incomplete"
    case adviceUsed = "link_expired.advice.used"
    case adviceExpired = "link_expired.advice.expired"
    case retrySignIn = "link_expired.retry_sign_in"
}
