import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The app's client of a Tollgate service: redeems codes, starts and follows web checkouts,
/// claims store purchases, keeps the signed-in session (refreshing it with rotation) and reads
/// entitlements. One instance per app; every call is async and safe from any task.
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
public actor Tollgate {
    /// Where the service is and how calls are sent.
    public nonisolated let configuration: TollgateConfiguration
    let transport: HTTPTransport
    let storage: any TokenStorage
    /// The refresh in flight, shared by every call that met a `401` meanwhile: a rotated refresh
    /// token must be sent once (a second use revokes the sign-in).
    var refreshInFlight: Task<TokenSet, any Error>?
    /// The PKCE verifier of the newest store claim's `loginURL`, used by `signIn(authorizationCode:)`.
    var claimVerifier: String?

    /// - Parameters:
    ///   - configuration: base URL, public API key, URLSession, retry policy.
    ///   - storage: where the session lives; pass Keychain-backed storage in an app.
    public init(configuration: TollgateConfiguration, storage: any TokenStorage = InMemoryTokenStorage()) {
        self.configuration = configuration
        self.transport = HTTPTransport(configuration: configuration)
        self.storage = storage
    }

    // MARK: Redemption

    /// Redeems a code for `appUserID` (`POST /api/v1/redeem`), signed in as the stored session
    /// when there is one. Retries network failures, `5xx` and `429` (honouring `Retry-After`) up
    /// to the policy's attempts with one `Idempotency-Key`, so a retry never redeems twice. On
    /// `success` the returned session is stored.
    /// - Parameters:
    ///   - code: as typed or from a link; the service ignores case, hyphens and spaces.
    ///   - deviceID: a stable id of this install (`identifierForVendor`), for the device limit.
    /// - Throws: `TollgateClientError` for a rejected request (`bad_request`, `unauthorized`, ...)
    ///   or when every attempt failed.
    public func redeem(code: String, appUserID: String, deviceID: String? = nil) async throws -> RedemptionResult {
        var body: [String: Any] = ["code": code, "app_user_id": appUserID, "app_user_secret": try await installSecret()]
        if let deviceID { body["device_id"] = deviceID }
        let response = try await send(try APIRequest.jsonPost("/api/v1/redeem", body))
        let result = try JSONCoding.decode(RedemptionResult.self, from: response)
        try await keepSession(of: result)
        return result
    }

    /// The entitlements of the signed-in account, or of `appUserID` when no session is stored
    /// (`GET /api/v1/entitlements`). Apps call it at launch and after returning from checkout.
    /// - Throws: `TollgateClientError` (`bad_request` when neither a session nor `appUserID` is there).
    public func entitlements(appUserID: String? = nil) async throws -> Entitlements {
        var request = APIRequest(method: "GET", path: "/api/v1/entitlements")
        if let appUserID {
            request.query = [
                URLQueryItem(name: "app_user_id", value: appUserID), URLQueryItem(name: "app_user_secret", value: try await installSecret())
            ]
        }
        return try JSONCoding.decode(Entitlements.self, from: try await send(request))
    }

    // MARK: This install

    /// This install's secret (`app_user_secret`): made once (256 random bits, base64url) and kept in
    /// the storage beside the tokens. It is sent with `app_user_id` on redemptions, checkouts, their
    /// polls and store claims, so the service knows the app user is this install's and can sign it
    /// in without a code being typed ("Who may act for an account").
    /// - Throws: whatever the storage throws.
    public func installSecret() async throws -> String {
        if let kept = try await storage.loadInstallSecret() { return kept }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let secret = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        try await storage.saveInstallSecret(secret)
        return secret
    }

    // MARK: Deep links

    /// Parses a link the app was opened with against this service's scheme and host; nil when it
    /// is not one of the service's links.
    public nonisolated func link(from url: URL) -> TollgateLink? {
        TollgateLink(url: url, appScheme: configuration.appScheme, baseURL: configuration.baseURL)
    }

    // MARK: Sending

    /// Sends `request` with the stored bearer (when it takes one); on a `401` with a stored
    /// refresh token, refreshes once and sends it again.
    func send(_ request: APIRequest) async throws -> APIResponse {
        let tokens = request.authorization == .ifSignedIn ? try await storage.load() : nil
        do {
            return try await transport.send(request, bearer: tokens?.accessToken)
        } catch let error as TollgateClientError where error.status == 401 && tokens != nil {
            guard let used = tokens else { throw error }
            let fresh = try await refreshedTokens(replacing: used)
            return try await transport.send(request, bearer: fresh.accessToken)
        }
    }

    /// Stores the session a successful redemption or checkout brought.
    func keepSession(of result: RedemptionResult?) async throws {
        if case .success(let success)? = result, let session = success.session {
            try await storage.save(session)
        }
    }
}
