/// Where the client keeps the signed-in session and this install's secret (`app_user_secret`,
/// API.md "Who may act for an account": it proves the install's app user, so keep it beside the
/// tokens). Apps supply Keychain storage (store the `TokenSet` as one Codable item and the secret
/// as another, `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly` for the secret: it must not
/// follow a backup to another device); tests and previews use `InMemoryTokenStorage`. Called only
/// from the `Tollgate` actor, one call at a time.
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
public protocol TokenStorage: Sendable {
    /// The stored session, or nil when signed out.
    /// - Throws: whatever the store throws; the call that needed the tokens fails with it.
    func load() async throws -> TokenSet?
    /// Replaces the stored session (after a redemption, a sign-in or a refresh).
    /// - Throws: whatever the store throws.
    func save(_ tokens: TokenSet) async throws
    /// Forgets the session (sign-out, or a refresh token the service no longer accepts).
    /// - Throws: whatever the store throws.
    func clear() async throws
    /// This install's secret, or nil before the first call that needed one.
    /// - Throws: whatever the store throws.
    func loadInstallSecret() async throws -> String?
    /// Keeps this install's secret for good (a sign-out does not clear it).
    /// - Throws: whatever the store throws.
    func saveInstallSecret(_ secret: String) async throws
}

/// A `TokenStorage` that lives as long as the process: for tests, previews and apps that
/// want no persistence.
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
public actor InMemoryTokenStorage: TokenStorage {
    private var tokens: TokenSet?
    private var installSecret: String?

    /// - Parameters:
    ///   - tokens: a session to start with, if any.
    ///   - installSecret: an install secret to start with, if any.
    public init(_ tokens: TokenSet? = nil, installSecret: String? = nil) {
        self.tokens = tokens
        self.installSecret = installSecret
    }

    /// The stored session, or nil.
    public func load() -> TokenSet? { tokens }

    /// Replaces the stored session.
    public func save(_ tokens: TokenSet) { self.tokens = tokens }

    /// Forgets the session.
    public func clear() { tokens = nil }

    /// The install secret, if one was made.
    public func loadInstallSecret() -> String? { installSecret }

    /// Keeps the install secret.
    public func saveInstallSecret(_ secret: String) { installSecret = secret }
}
