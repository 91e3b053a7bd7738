import Domain

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

    case noticeResent = "account.notice.resent"
    case errorEmailBoughtWith = "form.error.email_bought_with"
    case errorEmailPaidWith = "form.error.email_paid_with"
    case errorCodeWrong = "form.error.code_wrong"
    case errorCodeDead = "form.error.code_dead"
    case errorPasswordWrong = "form.error.password_wrong"
    case errorPasswordShort = "form.error.password_short"
    case errorPasswordsDiffer = "form.error.passwords_differ"
    case errorDeleteWord = "form.error.delete_word"
    case sourceWeb = "account.purchase.source_web"
    case purchaseEnds = "account.purchase.ends"
    case purchaseRenews = "account.purchase.renews"
    case purchaseEnded = "account.purchase.ended"
    case statusActive = "account.status.active"
    case statusTrialing = "account.status.trialing"
    case statusInGracePeriod = "account.status.in_grace_period"
    case statusBillingRetry = "account.status.billing_retry"
    case statusPaused = "account.status.paused"
    case statusCanceled = "account.status.canceled"
    case statusExpired = "account.status.expired"
    case statusRefunded = "account.status.refunded"
    case statusRevoked = "account.status.revoked"
    case statusPending = "account.status.pending"

    case errorBadRequest = "error.code.bad_request"
    case errorUnauthorized = "error.code.unauthorized"
    case errorForbidden = "error.code.forbidden"
    case errorNotFound = "error.code.not_found"
    case errorMethodNotAllowed = "error.code.method_not_allowed"
    case errorConflict = "error.code.conflict"
    case errorGone = "error.code.gone"
    case errorUnprocessable = "error.code.unprocessable"
    case errorUnsupportedMediaType = "error.code.unsupported_media_type"
    case errorRateLimited = "error.code.rate_limited"
    case errorUpstreamUnavailable = "error.code.upstream_unavailable"
    case errorNotConfigured = "error.code.not_configured"
    case errorInternal = "error.code.internal"
    case errorPurchaseBelongsToOtherUser = "error.code.purchase_belongs_to_other_user"
    case errorInvalidReceipt = "error.code.invalid_receipt"
    case errorStaleForm = "error.page.stale_form"
    case errorCodeRevoked = "error.page.code_revoked"
    case errorCheckoutLinkIncomplete = "error.page.checkout_link_incomplete"
    case errorAppLinkIncomplete = "error.page.app_link_incomplete"
    case errorEmailLinkIncomplete = "error.page.email_link_incomplete"
    case errorSessionEnded = "error.page.session_ended"
    case errorCheckoutStarted = "error.page.checkout_started"

    case goNativeCompleteTitle = "gonative.reply.complete.title"
    case goNativeActive = "gonative.reply.complete.active"
    case goNativeActiveUntil = "gonative.reply.complete.active_until"
    case goNativeUnlocked = "gonative.reply.complete.unlocked"
    case goNativeUnlockedUntil = "gonative.reply.complete.unlocked_until"
    case goNativeExpiredTitle = "gonative.reply.expired.title"
    case goNativeExpired = "gonative.reply.expired.message"
    case goNativeNotVerifiedTitle = "gonative.reply.not_verified.title"
    case goNativeNotVerified = "gonative.reply.not_verified.message"
    case goNativeOtherAccountTitle = "gonative.reply.other_account.title"
    case goNativeOtherAccount = "gonative.reply.other_account.message"
    case goNativeSignInTitle = "gonative.reply.sign_in.title"
    case goNativeSignIn = "gonative.reply.sign_in.message"
    case goNativeNotConfirmedTitle = "gonative.reply.not_confirmed.title"
    case goNativeNotConfirmed = "gonative.reply.not_confirmed.message"

    /// The words for a purchase's status on the account page.
    static func status(_ status: PurchaseStatus) -> PageText {
        switch status {
        case .active: .statusActive
        case .trialing: .statusTrialing
        case .inGracePeriod: .statusInGracePeriod
        case .billingRetry: .statusBillingRetry
        case .paused: .statusPaused
        case .canceled: .statusCanceled
        case .expired: .statusExpired
        case .refunded: .statusRefunded
        case .revoked: .statusRevoked
        case .pending: .statusPending
        }
    }
}
