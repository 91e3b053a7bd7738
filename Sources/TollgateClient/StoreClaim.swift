import Foundation

/// The answer of `POST /api/v1/iap/apple` and `/api/v1/iap/google`: the account that now holds
/// the store purchase, and a one-time `loginURL` that signs the app into it.
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
public struct StoreClaim: Sendable, Equatable, Decodable {
    /// Open in a browser session (`ASWebAuthenticationSession`): it ends at
    /// `{scheme}://auth/callback?code=...`, which `TollgateLink` parses and
    /// `Tollgate.signIn(authorizationCode:codeVerifier:)` exchanges. Valid 10 minutes, once.
    /// Nil when the claim did not prove the account holding the purchase (a bare transaction id,
    /// a family-shared transaction, another account holds it): see `sessionRequired`.
    public let loginURL: URL?
    /// True when no `loginURL` came: sign in by mail or password to reach the holding account.
    public let sessionRequired: Bool
    /// True when `appUserID` has install secrets bound and this install's is not one: nothing was linked.
    public let secretMismatch: Bool
    /// True when the purchase belongs to another account and `loginURL` signs into that one.
    public let accountSwitched: Bool
    /// True when a confirmation mail went to the email given in `CustomerDetails`.
    public let emailConfirmationRequired: Bool
    /// True when the service made a new account (generated username, no email).
    public let autoAccountCreated: Bool
    /// Whether the account has an email.
    public let isEmailSet: Bool
    /// The id to give the stores for this account (`appAccountToken` / `obfuscatedAccountId`).
    public let obfuscatedAccountID: String?
    /// The verified purchase.
    public let purchase: PurchaseInfo

    /// `loginURL` with a PKCE S256 `code_challenge` (base64url SHA-256 of your verifier, e.g. with
    /// CryptoKit); pass the verifier to `signIn(authorizationCode:codeVerifier:)`. Not needed with
    /// this client's claims: they carry a challenge already, and the service keeps that one.
    public func loginURL(codeChallenge: String) -> URL? {
        guard let loginURL else { return nil }
        guard var components = URLComponents(url: loginURL, resolvingAgainstBaseURL: false) else { return loginURL }
        var items = components.queryItems ?? []
        items += [URLQueryItem(name: "code_challenge", value: codeChallenge), URLQueryItem(name: "code_challenge_method", value: "S256")]
        components.percentEncodedQuery = FormEncoding.query(items)
        return components.url ?? loginURL
    }

    private enum CodingKeys: String, CodingKey {
        case purchase, extra
        case loginURL = "login_url"
        case accountSwitched = "account_switched"
        case emailConfirmationRequired = "email_confirmation_required"
        case autoAccountCreated = "auto_account_created"
        case isEmailSet = "is_email_set"
        case sessionRequired = "session_required"
        case secretMismatch = "secret_mismatch"
    }

    private enum ExtraKeys: String, CodingKey {
        case obfuscatedAccountID = "obfuscated_account_id"
    }

    /// Decodes API.md's claim answer.
    /// - Throws: `DecodingError` for a missing member.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        loginURL = try container.decodeIfPresent(URL.self, forKey: .loginURL)
        sessionRequired = try container.decodeIfPresent(Bool.self, forKey: .sessionRequired) ?? (loginURL == nil)
        secretMismatch = try container.decodeIfPresent(Bool.self, forKey: .secretMismatch) ?? false
        accountSwitched = try container.decodeIfPresent(Bool.self, forKey: .accountSwitched) ?? false
        emailConfirmationRequired = try container.decodeIfPresent(Bool.self, forKey: .emailConfirmationRequired) ?? false
        autoAccountCreated = try container.decodeIfPresent(Bool.self, forKey: .autoAccountCreated) ?? false
        isEmailSet = try container.decodeIfPresent(Bool.self, forKey: .isEmailSet) ?? false
        let extra = try? container.nestedContainer(keyedBy: ExtraKeys.self, forKey: .extra)
        obfuscatedAccountID = try extra?.decodeIfPresent(String.self, forKey: .obfuscatedAccountID)
        purchase = try container.decode(PurchaseInfo.self, forKey: .purchase)
    }
}
