/// Where the client keeps the signed-in session. Apps supply Keychain storage (store the
/// `TokenSet` as one Codable item, `kSecAttrAccessibleAfterFirstUnlock`); tests and previews
/// use `InMemoryTokenStorage`. Called only from the `Tollgate` actor, one call at a time.
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
}

/// A `TokenStorage` that lives as long as the process: for tests, previews and apps that
/// want no persistence.
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
public actor InMemoryTokenStorage: TokenStorage {
    private var tokens: TokenSet?

    /// - Parameter tokens: a session to start with, if any.
    public init(_ tokens: TokenSet? = nil) { self.tokens = tokens }

    /// The stored session, or nil.
    public func load() -> TokenSet? { tokens }

    /// Replaces the stored session.
    public func save(_ tokens: TokenSet) { self.tokens = tokens }

    /// Forgets the session.
    public func clear() { tokens = nil }
}
