import Foundation
import HTTPCore
import HTTPRouting
import UseCases

/// `GET /api/v1/checkout/eligibility?platform=ios|android&storefront=USA` (or `US`; the app's key):
/// whether the app may show its link to web checkout in that storefront (`CheckoutEligibility`).
/// Answers `{"link_out", "program", "token_required", "checkout_url"}`; `checkout_url` is
/// `/checkout/start` with the platform and storefront, for the app to add its plan, ids and
/// token to; `program` and `checkout_url` are null where the app may not link out. Given
/// `app_user_id`, also `already_entitled`: what that app user already holds of what the web
/// plans grant (`{"entitlement", "store", "manage_url"}`), or null.
struct CheckoutEligibilityRoute {
    let eligibility: CheckoutEligibility
    let links: Links
    var now: @Sendable () -> Date = { Date() }

    func add(to group: inout RouteGroup) {
        group.add(.get, "/api/v1/checkout/eligibility") { [eligibility, links, now] request, _ in
            let platform = request.queryParameter("platform")
            let answer = try eligibility.check(platform: platform, storefront: request.queryParameter("storefront"))
            // The storefront as the rules name it (alpha-3), whichever form the app sent.
            let storefront = try CheckoutEligibility.storefront(request.queryParameter("storefront"))
            let checkoutURL = answer.rule.map { rule in
                links.url("/checkout/start") + "?platform=\(rule.platform.rawValue)&storefront=\(storefront)"
            }
            // Given an app user: what it already holds of what the web plans grant (null: nothing).
            var held: AlreadyEntitledCheck.Refusal?
            let appUserID = try request.queryParameter("app_user_id").map { try AppUserIDInput.require($0) }
            if let appUserID { held = try await eligibility.alreadyEntitled(appUserID: appUserID, now: now()) }
            return .json { json in
                json.bool("link_out", answer.linkOut)
                json.string("program", answer.program)
                json.bool("token_required", answer.tokenRequired)
                json.string("checkout_url", checkoutURL)
                if appUserID != nil {
                    if let held {
                        json.object("already_entitled") { AlreadyEntitledResponse.write(held, into: &$0) }
                    } else {
                        json.string("already_entitled", nil)
                    }
                }
            }
        }
    }
}
