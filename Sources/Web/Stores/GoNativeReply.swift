import Domain
import HTTPCore
import UseCases

/// GoNative's answer to its postUrl: `200 {"success", "title", "message", "loadUrl"}`; the app
/// shows the title and message and, on success, opens `loadUrl`.
///
/// | outcome | `success` | `title` |
/// | --- | --- | --- |
/// | stored, entitled | true | "Purchase complete" |
/// | stored, no longer entitled | false | "Purchase expired" |
/// | receipt refused by the store | false | "Purchase not verified" |
/// | held by another account | false | "Purchase belongs to another account" |
enum GoNativeReply {
    static func answer(_ outcome: ClaimGoNativeReceipt.Outcome, appName: String, loadURL: String) -> HTTPResponse {
        switch outcome {
        case .notVerified(let why):
            return json(success: false, title: "Purchase not verified", message: "The App Store did not confirm this purchase. \(why)", loadURL: nil)
        case .belongsToOtherAccount:
            return json(
                success: false, title: "Purchase belongs to another account",
                message: "This purchase is already linked to another \(appName) account. Sign in to that account to use it.", loadURL: nil)
        case .expired:
            return json(success: false, title: "Purchase expired", message: "This purchase is no longer active.", loadURL: nil)
        case .unlocked(let purchase, let unlocked):
            var message = unlocked.isEmpty ? "Your purchase is active" : "\(unlocked.joined(separator: ", ")) is unlocked"
            if let expires = purchase.expiresAt { message += " until \(Timestamp.rfc3339(expires))" }
            return json(success: true, title: "Purchase complete", message: message + ".", loadURL: loadURL)
        }
    }

    static func json(success: Bool, title: String, message: String, loadURL: String?) -> HTTPResponse {
        .json { json in
            json.bool("success", success)
            json.string("title", title)
            json.string("message", message)
            json.string("loadUrl", loadURL)
        }
    }
}
