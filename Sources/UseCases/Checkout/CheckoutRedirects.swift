import Domain
import Foundation
import JSON

/// Redirect mode (API.md): the success page sends the buyer to a configured URL with the
/// purchase in the query instead of showing the code, when `redemption.mode` is `redirect` or the
/// checkout was started with a `redirect_url`. Only configured URLs are ever targets.
public struct CheckoutRedirects: Sendable {
    /// `redemption.mode = redirect`: every checkout lands on a URL.
    public var always: Bool
    /// `redemption.redirect_urls`: the only targets, the first by default.
    public var urls: [String]

    public init(always: Bool = false, urls: [String] = []) {
        self.always = always
        self.urls = urls
    }

    /// The parameters redirect mode names itself; a custom parameter never stands in for one.
    public static let ownParameters: Set<String> = ["app_user_id", "email", "stripe_subscription_id", "stripe_payment_intent_id", "code"]

    /// - Throws: `UseCaseError.badRequest` when `url` is not one of `urls` (no open redirect).
    func check(_ url: String?) throws {
        if let url, !urls.contains(url) {
            throw UseCaseError.badRequest("redirect_url is not one of the configured redirect URLs.")
        }
    }

    /// Where `completion` lands: nil for the code page; else a configured URL (the checkout's
    /// own if it is still configured, or the first) with `app_user_id`, `email`,
    /// `stripe_subscription_id` (or `stripe_payment_intent_id`), `code` and the custom
    /// parameters and `ply_` fields the checkout was started with.
    /// - Throws: `UseCaseError.notConfigured` when no redirect URL is configured.
    func url(for completion: CompleteCheckout.Completion) throws -> String? {
        let purchase = completion.completed.purchase
        let checkout = completion.completed.checkout
        guard always || checkout?.redirectURL != nil else { return nil }
        guard let target = checkout?.redirectURL.flatMap({ urls.contains($0) ? $0 : nil }) ?? urls.first else {
            throw UseCaseError.notConfigured("No redirect URL is configured.")
        }
        var parameters: [(String, String)] = []
        if let appUserID = purchase.appUserID { parameters.append(("app_user_id", appUserID)) }
        if let email = purchase.purchaserEmail { parameters.append(("email", email)) }
        if purchase.externalID.hasPrefix("sub_") {
            parameters.append(("stripe_subscription_id", purchase.externalID))
        } else {
            parameters.append(("stripe_payment_intent_id", purchase.externalID))
        }
        if let code = completion.code { parameters.append(("code", code.display)) }
        if let context = checkout?.context, case .object(let members)? = try? JSONValue.parse(Array(context.utf8)) {
            // The custom parameters given to /checkout/start and the ply_context fields (ply_<field>),
            // never overriding the purchase's own parameters above. The context holds only strings.
            let strings = members.compactMap { member in member.value.stringValue.map { (member.key, $0) } }
            if strings.count == members.count {
                for (key, value) in strings.sorted(by: { $0.0 < $1.0 }) where !Self.ownParameters.contains(key) {
                    parameters.append((key, value))
                }
            }
        }
        let query = parameters.map { Self.encode($0.0) + "=" + Self.encode($0.1) }.joined(separator: "&")
        return target + (target.contains("?") ? "&" : "?") + query
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters.
    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
