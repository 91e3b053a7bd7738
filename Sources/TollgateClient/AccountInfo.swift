/// The account that holds a purchase (API.md's `account` object).
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
public struct AccountInfo: Codable, Sendable, Equatable {
    /// The service's account id.
    public let id: String
    /// The id to give the stores (`appAccountToken`, `obfuscatedAccountId`) for this account.
    public let obfuscatedAccountID: String?
    /// The account's email, when it has one.
    public let email: String?
    /// Whether the email was confirmed.
    public let emailVerified: Bool

    /// Makes an account value (for previews and tests).
    public init(id: String, obfuscatedAccountID: String?, email: String?, emailVerified: Bool) {
        self.id = id
        self.obfuscatedAccountID = obfuscatedAccountID
        self.email = email
        self.emailVerified = emailVerified
    }

    enum CodingKeys: String, CodingKey {
        case id, email
        case obfuscatedAccountID = "obfuscated_account_id"
        case emailVerified = "email_verified"
    }

    /// Decodes API.md's `account` object (`email_verified` false when absent).
    /// - Throws: `DecodingError` when `id` is missing.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        obfuscatedAccountID = try container.decodeIfPresent(String.self, forKey: .obfuscatedAccountID)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        emailVerified = try container.decodeIfPresent(Bool.self, forKey: .emailVerified) ?? false
    }
}
