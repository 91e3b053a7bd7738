import Domain
import HTTPCore
import Logging
import UseCases

/// GoNative's answer to its postUrl: `200 {"success", "title", "message", "loadUrl"}`; the app
/// shows the title and message and opens `loadUrl`, which is always a URL: where the buyer goes
/// next (API.md "The buyer's web account").
///
/// `title` and `message` are in the buyer's language (the catalog's `gonative.reply.*`; English
/// shown here); API.md fixes the fields, not their words.
///
/// | outcome | `success` | `title` | `loadUrl` |
/// | --- | --- | --- | --- |
/// | stored, entitled | true | "Purchase complete" | the caller's (`/account`, or `/` for the app's API) |
/// | stored, no longer entitled | false | "Purchase expired" | `/gonative/store` (buy again) |
/// | receipt refused by the store (with `error`: Apple's `status` and reason) | false | "Purchase not verified" | `/gonative/store` |
/// | held by another account | false | "Purchase belongs to another account" | `/account` (which account this is) |
/// | store unreachable (the postUrl) | false | "Purchase not confirmed yet" | `/gonative/store` |
/// | not signed in (the postUrl) | false | "Sign in first" | `/account/sign-in?next=/gonative/store` |
enum GoNativeReply {
    /// Where each answer sends the buyer.
    struct Destinations {
        /// After a purchase was confirmed.
        var success: String
        /// The store page: to try again or buy again.
        var store: String
        /// The buyer's account page.
        var account: String
        /// Sign-in, back to the store page afterwards.
        var signIn: String

        /// The destinations under `links`, with `success` after a confirmed purchase.
        init(links: Links, success: String) {
            self.success = success
            store = links.url("/gonative/store")
            account = links.url("/account")
            signIn = links.url("/account/sign-in?next=/gonative/store")
        }
    }

    /// The buyer's words for the answers: `title` and `message` are shown in the web view, so
    /// they follow the buyer's language (`Pages.language(for:)`) like every page.
    struct Words {
        let pages: Pages
        let language: String
        let appName: String

        func callAsFunction(_ key: PageText, _ arguments: [String: String] = [:]) -> String {
            var arguments = arguments
            arguments["app_name"] = appName
            return pages.text(key, language: language, arguments)
        }
    }

    static func answer(_ outcome: ClaimGoNativeReceipt.Outcome, words: Words, to next: Destinations) -> HTTPResponse {
        switch outcome {
        case .notVerified(let refusal):
            // The store's reason is a developer's sentence in English: the buyer gets the catalog's
            // words, the app and its developer the reason and Apple's status in `error`.
            return json(
                success: false, title: words(.goNativeNotVerifiedTitle), message: words(.goNativeNotVerified), loadURL: next.store, refusal: refusal)
        case .belongsToOtherAccount:
            return json(
                success: false, title: words(.goNativeOtherAccountTitle), message: words(.goNativeOtherAccount), loadURL: next.account)
        case .expired:
            return json(success: false, title: words(.goNativeExpiredTitle), message: words(.goNativeExpired), loadURL: next.store)
        case .unlocked(let purchase, let unlocked):
            let date = purchase.expiresAt.map { LocaleFormat.dateTime($0, language: words.language) }
            let entitlements = unlocked.joined(separator: ", ")
            let message =
                switch (unlocked.isEmpty, date) {
                case (true, nil): words(.goNativeActive)
                case (true, let date?): words(.goNativeActiveUntil, ["date": date])
                case (false, nil): words(.goNativeUnlocked, ["entitlements": entitlements])
                case (false, let date?): words(.goNativeUnlockedUntil, ["entitlements": entitlements, "date": date])
                }
            return json(success: true, title: words(.goNativeCompleteTitle), message: message, loadURL: next.success)
        }
    }

    /// The answer to a refusal before or instead of an outcome: not signed in, the store
    /// unreachable, or anything else a use case refused (its code's words from the catalog).
    static func refusal(_ error: UseCaseError, words: Words, to next: Destinations) -> HTTPResponse {
        switch error.kind {
        case .unauthorized:
            return json(success: false, title: words(.goNativeSignInTitle), message: words(.goNativeSignIn), loadURL: next.signIn)
        case .upstreamUnavailable, .unavailable, .notConfigured, .rateLimited:
            return json(success: false, title: words(.goNativeNotConfirmedTitle), message: words(.goNativeNotConfirmed), loadURL: next.store)
        default:
            let mapped = APIError(error)
            return json(
                success: false, title: words(.goNativeNotVerifiedTitle), message: words(.error(code: mapped.code, status: mapped.status)),
                loadURL: next.store)
        }
    }

    /// Logs the store's refusal of a receipt (Apple's `status` and reason; never the receipt), as
    /// GoNative's docs recommend; other outcomes log nothing here.
    static func log(_ outcome: ClaimGoNativeReceipt.Outcome, to logger: Logger) {
        guard case .notVerified(let refusal) = outcome else { return }
        var fields: [(String, LogValue)] = [("reason", .string(refusal.reason))]
        if let status = refusal.status { fields.insert(("status", .int(status)), at: 0) }
        logger.warning("gonative_receipt_refused", fields)
    }

    static func json(success: Bool, title: String, message: String, loadURL: String, refusal: ClaimGoNativeReceipt.Refusal? = nil) -> HTTPResponse {
        .json { json in
            json.bool("success", success)
            json.string("title", title)
            json.string("message", message)
            json.string("loadUrl", loadURL)
            if let refusal {
                json.object("error") { error in
                    error.string("code", "invalid_receipt")
                    error.string("message", refusal.reason)
                    if let status = refusal.status { error.int("status", status) }
                    error.bool("retryable", false)
                }
            }
        }
    }
}
