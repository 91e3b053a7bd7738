import Crypto
import Domain
import Foundation
import HTTPCore
import HTTPRouting
import JSON
import UseCases

/// `POST /api/v1/iap/apple` and `POST /api/v1/iap/google`: accounts from in-app purchases
/// (`ClaimStorePurchase`: API.md's four-way table). Answers with the `login_url` of the account
/// that now holds the purchase.
struct IAPAccountRoutes {
    let claim: ClaimStorePurchase
    let now: @Sendable () -> Date

    struct CustomerDetails: Decodable {
        let email: String?
    }

    struct AppleBody: Decodable {
        let subscriptionTransactionJws: String?
        let appReceiptBase64: String?
        /// `transaction_id`, or Cleeng's camelCase `transactionId` (the same key once snake_case is read).
        let transactionId: String?
        /// Cleeng's camelCase `receiptData`: the app receipt, sent with `transactionId`.
        let receiptData: String?
        let customerDetails: CustomerDetails?
        let appUserId: String?
        let appUserSecret: String?
        let codeChallenge: String?
    }

    struct GoogleBody: Decodable {
        let purchaseToken: String
        let sku: String
        let customerDetails: CustomerDetails?
        let appUserId: String?
        let appUserSecret: String?
        let codeChallenge: String?
    }

    /// Who the app says it is besides a bearer: `app_user_id` + `app_user_secret` (a matching pair
    /// counts as signed in), and the PKCE `code_challenge` the login link will require.
    struct AppIdentity {
        let appUserID: String?
        let secret: InstallSecret?
        let codeChallenge: String?

        /// - Throws: `APIError.badRequest` for a malformed id, secret or challenge.
        init(_ request: HTTPRequest, appUserID: String?, secret: String?, codeChallenge: String?) throws {
            self.appUserID = try appUserID.map { try AppUserIDInput.require($0) }
            self.secret = try AppUserSecretInput.read(request, fieldValue: secret)
            if let challenge = codeChallenge, challenge.count != 43 || (try? Base64URL.decode(challenge))?.count != 32 {
                throw APIError.badRequest("code_challenge must be the base64url SHA-256 (S256) of the code verifier.")
            }
            self.codeChallenge = codeChallenge
        }
    }

    func add(to group: inout RouteGroup, _ middleware: RouteMiddleware) {
        group.add(.post, "/api/v1/iap/apple", maxBodyBytes: 256 * 1024, [middleware.idempotent("iap.apple"), BearerTokenMiddleware()]) {
            [self] request, context in
            let body = try request.decodeJSON(AppleBody.self, context)
            let proof = try Self.appleProof(body)
            let identity = try AppIdentity(request, appUserID: body.appUserId, secret: body.appUserSecret, codeChallenge: body.codeChallenge)
            return try await claimed(
                proof, jsonBody: context.jsonBody, bearer: context.bearerToken, identity: identity, email: body.customerDetails?.email)
        }
        group.add(.post, "/api/v1/iap/google", maxBodyBytes: 64 * 1024, [middleware.idempotent("iap.google"), BearerTokenMiddleware()]) {
            [self] request, context in
            let body = try request.decodeJSON(GoogleBody.self, context)
            guard !body.purchaseToken.isEmpty, body.purchaseToken.utf8.count <= 4096, !body.sku.isEmpty, body.sku.utf8.count <= 255 else {
                throw APIError.badRequest("purchase_token and sku must be non-empty.")
            }
            let identity = try AppIdentity(request, appUserID: body.appUserId, secret: body.appUserSecret, codeChallenge: body.codeChallenge)
            return try await claimed(
                .play(purchaseToken: body.purchaseToken, sku: body.sku), jsonBody: context.jsonBody, bearer: context.bearerToken, identity: identity,
                email: body.customerDetails?.email)
        }
    }

    /// Exactly one of the three proofs, or (StoreKit 1 integrations) `transaction_id` with
    /// `app_receipt_base64`, or Cleeng's own body `{"transactionId", "receiptData"}` (camelCase, its
    /// documented shape): that transaction from the receipt.
    /// - Throws: `APIError.badRequest` for any other combination.
    static func appleProof(_ body: AppleBody) throws -> ClaimStorePurchase.Proof {
        func sent(_ text: String?) -> String? { text.flatMap { $0.isEmpty ? nil : $0 } }
        if let cleengReceipt = sent(body.receiptData) {
            guard sent(body.appReceiptBase64) == nil, sent(body.subscriptionTransactionJws) == nil, let id = sent(body.transactionId) else {
                throw APIError.badRequest(
                    "receiptData comes with transactionId (Cleeng's StoreKit 1 body); send it with neither app_receipt_base64 nor subscription_transaction_jws."
                )
            }
            return .appStoreReceiptTransaction(receipt: cleengReceipt, transactionID: id)
        }
        switch (sent(body.subscriptionTransactionJws), sent(body.appReceiptBase64), sent(body.transactionId)) {
        case (let jws?, nil, nil): return .appStoreSignedTransaction(jws)
        case (nil, let receipt?, nil): return .appStoreReceipt(receipt)
        case (nil, nil, let id?): return .appStoreTransactionID(id)
        case (nil, let receipt?, let id?): return .appStoreReceiptTransaction(receipt: receipt, transactionID: id)
        default:
            throw APIError.badRequest(
                "Send exactly one of subscription_transaction_jws, app_receipt_base64 and transaction_id "
                    + "(or transaction_id with app_receipt_base64, to claim that transaction of the receipt).")
        }
    }

    private func claimed(
        _ proof: ClaimStorePurchase.Proof, jsonBody: JSONValue?, bearer: String?, identity: AppIdentity, email rawEmail: String?
    ) async throws -> HTTPResponse {
        let email = try rawEmail.flatMap {
            $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : try EmailAddress.require($0, field: "customer_details.email")
        }
        let claimant = ClaimStorePurchase.Claimant(
            bearer: bearer, email: email, conversionDetails: Self.conversionDetails(jsonBody), appUserID: identity.appUserID,
            secret: identity.secret, codeChallenge: identity.codeChallenge)
        let claimed = try await claim.claim(proof, by: claimant, now: now())
        return .json { json in
            if let loginURL = claimed.loginURL { json.string("login_url", loginURL) }
            json.bool("account_switched", claimed.accountSwitched)
            json.bool("email_confirmation_required", claimed.emailConfirmationRequired)
            json.bool("auto_account_created", claimed.autoAccountCreated)
            if claimed.loginURL == nil { json.bool("session_required", true) }
            if claimed.secretMismatch { json.bool("secret_mismatch", true) }
            if let reason = claimed.emailNotRequested { json.string("email_not_requested", reason.rawValue) }
            // The account is named only to a caller that proved it.
            if claimed.loginURL != nil, let account = claimed.account {
                json.bool("is_email_set", account.email != nil)
                json.object("extra") { $0.string("obfuscated_account_id", account.obfuscatedID) }
            }
            PurchaseJSON.writePurchase(claimed.purchase, into: &json)
        }
    }

    /// `conversion_details` of the JSON body as JSON text, keys sorted (attribution), if the body
    /// has a non-empty object there.
    static func conversionDetails(_ body: JSONValue?) -> String? {
        guard let details = body?["conversion_details"], case .object(let members) = details, !members.isEmpty else { return nil }
        return String(decoding: details.keysSorted.serialized(), as: UTF8.self)
    }
}
