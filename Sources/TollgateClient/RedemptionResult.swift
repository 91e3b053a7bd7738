import Foundation

/// The outcome of redeeming a code (API.md "Redemption (app)"): one case per `status`.
/// These are outcomes, not errors: the app switches on them to show the right screen.
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
public enum RedemptionResult: Sendable, Equatable, Decodable {
    /// `success`: the purchase is linked; unlock what `info.entitlements` grants. The client has
    /// already stored `session` in its `TokenStorage`.
    case success(Success)
    /// `expired_code`: the code outlived its validity. `resent` says whether a fresh code was
    /// just emailed to `obfuscatedEmail` (`j•••@e•••.com`).
    case expiredCode(code: String, resent: Bool, obfuscatedEmail: String?)
    /// `invalid_code`: unknown, revoked or mistyped.
    case invalidCode(code: String)
    /// `expired_subscription`: the code is good but its purchase is no longer active.
    case expiredSubscription(code: String?, info: RedemptionInfo)
    /// `purchase_belongs_to_other_user`: another user redeemed it and the service is configured
    /// to refuse a second one (`on_other_user: reject`).
    case purchaseBelongsToOtherUser(code: String)
    /// `error`: the service could not redeem it; `message` says why (also a `secret_mismatch`:
    /// this install's secret is not one bound to the app user).
    case error(code: String, message: String)
    /// A checkout poll's `success` for a caller that only named the app user (API.md "Who may act
    /// for an account"): the purchase grants `entitlements`, but no session came; sign in (mail,
    /// password) or redeem the code to reach the account.
    case sessionRequired(entitlements: [Entitlement])

    /// What a successful redemption returns.
    public struct Success: Sendable, Equatable {
        /// The code as the service displays it (`K7P2-9QXM-4D8R-2WTF`); in a checkout poll, the
        /// purchase's code while it can be redeemed, nil after.
        public let code: String?
        /// The purchase and the entitlements it grants.
        public let info: RedemptionInfo
        /// The account that now holds the purchase (only with `session`).
        public let account: AccountInfo?
        /// True when this device joined the account of the first redeemer.
        public let accountSwitched: Bool
        /// Tokens for `account`, when the caller proved it (its install secret, a bearer, or the
        /// code for the account its purchase formed); nil with `sessionRequired`.
        public let session: TokenSet?

        /// True when no session came: this app user holds the purchase's entitlements, but the
        /// account holding it must be signed into some other way.
        public var sessionRequired: Bool { session == nil }

        /// Makes a success value (for previews and tests).
        public init(code: String?, info: RedemptionInfo, account: AccountInfo?, accountSwitched: Bool, session: TokenSet?) {
            self.code = code
            self.info = info
            self.account = account
            self.accountSwitched = accountSwitched
            self.session = session
        }
    }

    private enum CodingKeys: String, CodingKey {
        case status, code, account, session, expired, error, entitlements
        case redemptionInfo = "redemption_info"
        case accountSwitched = "account_switched"
    }

    private struct Expired: Decodable {
        let resent: Bool?
        let obfuscatedEmail: String?
        enum CodingKeys: String, CodingKey {
            case resent
            case obfuscatedEmail = "obfuscated_email"
        }
    }

    private struct Failure: Decodable {
        let message: String?
    }

    /// Decodes one of API.md's six shapes.
    /// - Throws: `DecodingError` for a missing member or a status this client does not know.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let status = try container.decode(String.self, forKey: .status)
        let code = try container.decodeIfPresent(String.self, forKey: .code)
        switch status {
        case "success" where !container.contains(.redemptionInfo):
            self = .sessionRequired(entitlements: try container.decodeIfPresent([Entitlement].self, forKey: .entitlements) ?? [])
        case "success":
            let account = try container.decodeIfPresent(AccountInfo.self, forKey: .account)
            let session = try container.decodeIfPresent(TokenSet.Wire.self, forKey: .session)
            self = .success(
                Success(
                    code: code, info: try container.decode(RedemptionInfo.self, forKey: .redemptionInfo), account: account,
                    accountSwitched: try container.decodeIfPresent(Bool.self, forKey: .accountSwitched) ?? false,
                    session: session?.tokens(accountID: account?.id)))
        case "expired_code":
            let expired = try container.decodeIfPresent(Expired.self, forKey: .expired)
            self = .expiredCode(code: code ?? "", resent: expired?.resent ?? false, obfuscatedEmail: expired?.obfuscatedEmail)
        case "invalid_code":
            self = .invalidCode(code: code ?? "")
        case "expired_subscription":
            self = .expiredSubscription(code: code, info: try container.decode(RedemptionInfo.self, forKey: .redemptionInfo))
        case "purchase_belongs_to_other_user":
            self = .purchaseBelongsToOtherUser(code: code ?? "")
        case "error":
            let failure = try container.decodeIfPresent(Failure.self, forKey: .error)
            self = .error(code: code ?? "", message: failure?.message ?? "The code could not be redeemed.")
        default:
            throw DecodingError.dataCorruptedError(forKey: .status, in: container, debugDescription: "unknown redemption status \(status)")
        }
    }
}
