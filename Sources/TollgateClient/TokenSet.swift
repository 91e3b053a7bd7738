import Foundation

/// A signed-in session: what `TokenStorage` keeps. Codable so Keychain storage can store it
/// as one item.
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
public struct TokenSet: Codable, Sendable, Equatable {
    /// Sent as `Authorization: Bearer`.
    public var accessToken: String
    /// Exchanged once for a new pair (rotation): the old one is dead after use.
    public var refreshToken: String
    /// The account the session signs in, when the service said.
    public var accountID: String?
    /// When the access token stops working (from `expires_in`), if known.
    public var expiresAt: Date?

    /// Makes a token set (storage implementations decode it; apps rarely make one).
    public init(accessToken: String, refreshToken: String, accountID: String? = nil, expiresAt: Date? = nil) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.accountID = accountID
        self.expiresAt = expiresAt
    }

    /// The wire shape of `session` (redeem) and of `/auth/token`'s answer.
    struct Wire: Decodable {
        let accessToken: String
        let refreshToken: String
        let expiresIn: Int?
        let accountId: String?

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case refreshToken = "refresh_token"
            case expiresIn = "expires_in"
            case accountId = "account_id"
        }

        func tokens(accountID: String? = nil, receivedAt: Date = Date()) -> TokenSet {
            TokenSet(
                accessToken: accessToken, refreshToken: refreshToken, accountID: accountId ?? accountID,
                expiresAt: expiresIn.map { receivedAt.addingTimeInterval(TimeInterval($0)) })
        }
    }
}
