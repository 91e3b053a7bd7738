import Foundation

/// Signing in and out: `POST /auth/token` grants, refresh with rotation, sign-out.
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
extension Tollgate {
    /// Exchanges the `code` of `{scheme}://auth/callback?code=...` (after a `loginURL`) for a
    /// session and stores it.
    /// - Parameter codeVerifier: the PKCE verifier, when you sent your own `code_challenge`; nil uses
    ///   the one this client made for its newest store claim (claims always carry a challenge).
    /// - Throws: `TollgateClientError` (`invalid_grant` for an unknown, used or expired code, or
    ///   a verifier that does not match).
    @discardableResult
    public func signIn(authorizationCode: String, codeVerifier: String? = nil) async throws -> TokenSet {
        var fields = [("grant_type", "authorization_code"), ("code", authorizationCode)]
        if let verifier = codeVerifier ?? claimVerifier { fields.append(("code_verifier", verifier)) }
        let tokens = try await grant(fields)
        claimVerifier = nil
        try await storage.save(tokens)
        return tokens
    }

    /// Exchanges the stored refresh token for a new pair now and stores it (rotation: the old
    /// refresh token is dead). Calls refresh by themselves on a `401`; this is for apps that
    /// want to refresh ahead of time.
    /// - Throws: `TollgateClientError` (`not_signed_in` without a session; `invalid_grant` when the
    ///   service no longer accepts it, after which the session is cleared).
    @discardableResult
    public func refreshSession() async throws -> TokenSet {
        guard let tokens = try await storage.load() else { throw TollgateClientError.notSignedIn }
        return try await refreshedTokens(replacing: tokens)
    }

    /// The stored session, if any (to show "signed in as", or to hand the tokens to a web view).
    /// - Throws: whatever the storage throws.
    public func currentSession() async throws -> TokenSet? {
        try await storage.load()
    }

    /// Forgets the session: later calls go out without a bearer token.
    /// - Throws: whatever the storage throws.
    public func signOut() async throws {
        refreshInFlight?.cancel()
        refreshInFlight = nil
        try await storage.clear()
    }

    /// A session newer than `used`: the one another call already refreshed to, the refresh in
    /// flight, or a new refresh. A refresh token the service refuses clears the session.
    func refreshedTokens(replacing used: TokenSet) async throws -> TokenSet {
        // Signed out meanwhile: do not sign back in with a token the app let go of.
        guard let current = try await storage.load() else { throw TollgateClientError.notSignedIn }
        if current.accessToken != used.accessToken { return current }
        if let running = refreshInFlight { return try await running.value }
        let storage = self.storage
        let task = Task { [transport] () throws -> TokenSet in
            let request = APIRequest.tokenGrant([("grant_type", "refresh_token"), ("refresh_token", used.refreshToken)])
            do {
                let response = try await transport.send(request, bearer: nil)
                let tokens = try JSONCoding.decode(TokenSet.Wire.self, from: response).tokens(accountID: used.accountID)
                try await storage.save(tokens)
                return tokens
            } catch let error as TollgateClientError where error.code == .invalidGrant {
                try await storage.clear()
                throw error
            }
        }
        refreshInFlight = task
        defer { refreshInFlight = nil }
        return try await task.value
    }

    /// `POST /auth/token` with `fields`; the answer as a session.
    private func grant(_ fields: [(String, String)]) async throws -> TokenSet {
        let response = try await transport.send(APIRequest.tokenGrant(fields), bearer: nil)
        return try JSONCoding.decode(TokenSet.Wire.self, from: response).tokens()
    }
}
