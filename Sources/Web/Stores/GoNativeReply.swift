import Domain
import HTTPCore
import UseCases

/// GoNative's answer to its postUrl: `200 {"success", "title", "message", "loadUrl"}`; the app
/// shows the title and message and opens `loadUrl`, which is always a URL: where the buyer goes
/// next (API.md "The buyer's web account").
///
/// | outcome | `success` | `title` | `loadUrl` |
/// | --- | --- | --- | --- |
/// | stored, entitled | true | "Purchase complete" | the caller's (`/account`, or `/` for the app's API) |
/// | stored, no longer entitled | false | "Purchase expired" | `/gonative/store` (buy again) |
/// | receipt refused by the store | false | "Purchase not verified" | `/gonative/store` |
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

    static func answer(_ outcome: ClaimGoNativeReceipt.Outcome, appName: String, to next: Destinations) -> HTTPResponse {
        switch outcome {
        case .notVerified(let why):
            return json(
                success: false, title: "Purchase not verified", message: "The App Store did not confirm this purchase. \(why)", loadURL: next.store)
        case .belongsToOtherAccount:
            return json(
                success: false, title: "Purchase belongs to another account",
                message: "This purchase is already linked to another \(appName) account. Sign in to that account to use it.",
                loadURL: next.account)
        case .expired:
            return json(success: false, title: "Purchase expired", message: "This purchase is no longer active.", loadURL: next.store)
        case .unlocked(let purchase, let unlocked):
            var message = unlocked.isEmpty ? "Your purchase is active" : "\(unlocked.joined(separator: ", ")) is unlocked"
            if let expires = purchase.expiresAt { message += " until \(Timestamp.rfc3339(expires))" }
            return json(success: true, title: "Purchase complete", message: message + ".", loadURL: next.success)
        }
    }

    static func json(success: Bool, title: String, message: String, loadURL: String) -> HTTPResponse {
        .json { json in
            json.bool("success", success)
            json.string("title", title)
            json.string("message", message)
            json.string("loadUrl", loadURL)
        }
    }
}
