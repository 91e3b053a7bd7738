import Foundation

/// Accounts from in-app purchases: `POST /api/v1/iap/apple` and `/api/v1/iap/google`.
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
extension Tollgate {
    /// Claims an App Store purchase by its signed transaction (StoreKit 2's `jwsRepresentation`).
    /// - Throws: `TollgateClientError`: `invalid_receipt` (422) when Apple rejects it,
    ///   `purchase_belongs_to_other_user` (409) under `on_other_user: reject`,
    ///   `upstream_unavailable` when Apple cannot be reached after the retries.
    public func claimAppStore(jws: String, details: StoreClaimDetails = StoreClaimDetails()) async throws -> StoreClaim {
        try await claim("/api/v1/iap/apple", ["subscription_transaction_jws": jws], details)
    }

    /// Claims App Store purchases by the app receipt (StoreKit 1), base64 as read from the bundle.
    /// - Throws: `TollgateClientError`, as `claimAppStore(jws:details:)`.
    public func claimAppStore(receipt: String, details: StoreClaimDetails = StoreClaimDetails()) async throws -> StoreClaim {
        try await claim("/api/v1/iap/apple", ["app_receipt_base64": receipt], details)
    }

    /// Claims an App Store purchase by its transaction id (the service asks Apple for it).
    /// - Throws: `TollgateClientError`, as `claimAppStore(jws:details:)`.
    public func claimAppStore(transactionID: String, details: StoreClaimDetails = StoreClaimDetails()) async throws -> StoreClaim {
        try await claim("/api/v1/iap/apple", ["transaction_id": transactionID], details)
    }

    /// Claims a Google Play purchase by its purchase token and product id (`sku`).
    /// - Throws: `TollgateClientError`, as `claimAppStore(jws:details:)` (Google instead of Apple).
    public func claimPlay(token: String, sku: String, details: StoreClaimDetails = StoreClaimDetails()) async throws -> StoreClaim {
        try await claim("/api/v1/iap/google", ["purchase_token": token, "sku": sku], details)
    }

    private func claim(_ path: String, _ purchase: [String: Any], _ details: StoreClaimDetails) async throws -> StoreClaim {
        var body = purchase
        details.add(to: &body)
        if details.appUserID != nil { body["app_user_secret"] = try await installSecret() }
        // Always a PKCE challenge: the login link then signs in only with this client's verifier.
        if details.codeChallenge == nil {
            let pkce = PKCE.make()
            body["code_challenge"] = pkce.challenge
            claimVerifier = pkce.verifier
        }
        return try JSONCoding.decode(StoreClaim.self, from: try await send(try APIRequest.jsonPost(path, body)))
    }
}
