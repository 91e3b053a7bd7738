import Crypto
import Domain
import Foundation
import HTTPServer
import Storage

/// `POST /api/v1/iap/apple` and `POST /api/v1/iap/google`: accounts from in-app purchases
/// (API.md's four-way table of signed in or not × customer details or not). The purchase is
/// verified with the store first; then, in one transaction, it is linked, an account is
/// created or found, emails are queued, and a one-time `login_url` signs the app into the
/// account that now holds the purchase. Claiming an email never signs anyone into an
/// existing account that owns that email: without a purchase that proves it, a new account
/// is made.
struct IAPAccountRoutes {
    let services: AppServices
    let auth: AppAuthentication

    struct CustomerDetails: Decodable {
        let email: String?
    }

    struct AppleBody: Decodable {
        let subscriptionTransactionJws: String?
        let appReceiptBase64: String?
        let transactionId: String?
        let customerDetails: CustomerDetails?
    }

    struct GoogleBody: Decodable {
        let purchaseToken: String
        let sku: String
        let customerDetails: CustomerDetails?
    }

    /// What the transaction decided, for the response.
    struct Claimed: Sendable {
        let account: Account
        let loginToken: String
        let switched: Bool
        let emailConfirmationRequired: Bool
        let autoCreated: Bool
        let purchase: Purchase
    }

    func register(on router: inout Router) {
        let idempotency = IdempotencyKeys(services: services)
        router.add(.post, "/api/v1/iap/apple", maxBodyBytes: 256 * 1024) { [services, auth] request, _ in
            try auth.apiKeys.verify(request)
            let body = try request.decodeJSON(AppleBody.self)
            let inputs = [body.subscriptionTransactionJws, body.appReceiptBase64, body.transactionId].compactMap { $0 }.filter { !$0.isEmpty }
            guard inputs.count == 1 else {
                throw APIError.badRequest("Send exactly one of subscription_transaction_jws, app_receipt_base64 and transaction_id.")
            }
            return try await idempotency.run(request, scope: "iap.apple") {
                let verifier = StorePurchaseVerifier(services: services)
                let verified: VerifiedStorePurchase
                if let jws = body.subscriptionTransactionJws, !jws.isEmpty {
                    verified = try await verifier.appStore(signedTransaction: jws)
                } else if let receipt = body.appReceiptBase64, !receipt.isEmpty {
                    verified = try await verifier.appStore(receiptBase64: receipt)
                } else {
                    verified = try await verifier.appStore(transactionID: body.transactionId ?? "")
                }
                return try await claim(verified, request: request, email: body.customerDetails?.email)
            }
        }
        router.add(.post, "/api/v1/iap/google", maxBodyBytes: 64 * 1024) { [services, auth] request, _ in
            try auth.apiKeys.verify(request)
            let body = try request.decodeJSON(GoogleBody.self)
            guard !body.purchaseToken.isEmpty, body.purchaseToken.utf8.count <= 4096, !body.sku.isEmpty, body.sku.utf8.count <= 255 else {
                throw APIError.badRequest("purchase_token and sku must be non-empty.")
            }
            return try await idempotency.run(request, scope: "iap.google") {
                let verified = try await StorePurchaseVerifier(services: services).playStore(purchaseToken: body.purchaseToken, productID: body.sku)
                return try await claim(verified, request: request, email: body.customerDetails?.email)
            }
        }
    }

    /// Links a verified purchase per the table and answers with the `login_url`.
    private func claim(_ verified: VerifiedStorePurchase, request: HTTPRequest, email rawEmail: String?) async throws -> HTTPResponse {
        let services = self.services
        let bearer = try AppAuthentication.bearerToken(request)
        let email = try rawEmail.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : try EmailAddress.require($0) }
        let attribution = Self.conversionDetails(request.body)
        let now = services.now()
        // An account made from a bare purchase gets a random password: hash it before taking the
        // writer (scrypt is slow on purpose), only when such an account may be needed.
        var prepared: String?
        if bearer == nil, email == nil {
            let owned = try await services.database.read { connection -> Bool in
                try PurchaseRepository.find(platform: verified.snapshot.platform, reference: verified.snapshot.externalID, on: connection)?.accountID != nil
            }
            if !owned { prepared = try await PasswordWork.hash(try OpaqueToken.generate()) }
        }
        let passwordHash = prepared
        let policy = PurchaseClaim.policy(services)
        let claimed = try await StorePurchaseVerifier(services: services).record(verified) { connection, applied -> Claimed in
            let signedIn = try AppAuthentication.account(for: bearer, on: connection, now: now)
            try PurchaseClaim.linkByOwnerHint(applied.purchase, on: connection, now: now)
            var purchase = try PurchaseRepository.require(id: applied.purchase.id, on: connection)
            if purchase.attribution == nil, let attribution {
                try PurchaseRepository.setOrigin(purchaseID: purchase.id, appUserID: nil, attribution: attribution, email: nil, on: connection)
            }
            let owner = purchase.accountID
            var target: String
            var switched = false
            var autoCreated = false
            var confirmationRequired = false
            if let signedIn {
                if let owner, owner != signedIn {
                    switch policy {
                    case .reject:
                        throw APIError(status: .conflict, code: "purchase_belongs_to_other_user", message: "This purchase belongs to another account.")
                    case .transfer:
                        try PurchaseRepository.link(purchaseID: purchase.id, to: signedIn, on: connection, now: now)
                        target = signedIn
                    case .switch:
                        target = owner
                        switched = true
                    }
                } else {
                    if owner == nil { try PurchaseRepository.link(purchaseID: purchase.id, to: signedIn, on: connection, now: now) }
                    target = signedIn
                }
                if let email {
                    // The signed-in account takes the new address, unconfirmed.
                    confirmationRequired = try Self.claimEmail(email, accountID: signedIn, services: services, on: connection, now: now)
                }
            } else if let owner {
                target = owner
                if let email {
                    let account = try AccountRepository.require(id: owner, on: connection)
                    if !account.emailVerified {
                        confirmationRequired = try Self.claimEmail(email, accountID: owner, services: services, on: connection, now: now)
                    }
                }
            } else if let email {
                let account = try AccountRepository.create(email: email, secrets: services.secrets, on: connection, now: now)
                try PurchaseRepository.link(purchaseID: purchase.id, to: account.id, on: connection, now: now)
                try AuthMail(services: services).queueConfirmation(accountID: account.id, email: email, on: connection)
                target = account.id
                confirmationRequired = true
            } else {
                let account = try AccountRepository.create(secrets: services.secrets, on: connection, now: now)
                _ = try AccountRepository.assignUsername(accountID: account.id, on: connection, now: now)
                guard let passwordHash else {
                    // The purchase lost its owner between the first look and now: rare; a retry takes the right path.
                    throw APIError(status: .serviceUnavailable, code: "upstream_unavailable", message: "The purchase changed hands meanwhile; retry.")
                }
                try AccountRepository.setPasswordHash(passwordHash, accountID: account.id, on: connection, now: now)
                try PurchaseRepository.link(purchaseID: purchase.id, to: account.id, on: connection, now: now)
                target = account.id
                autoCreated = true
            }
            purchase = try PurchaseRepository.require(id: purchase.id, on: connection)
            let token = try AuthTokenRepository.issue(.login, accountID: target, on: connection, now: now)
            return Claimed(
                account: try AccountRepository.require(id: target, on: connection), loginToken: token, switched: switched,
                emailConfirmationRequired: confirmationRequired, autoCreated: autoCreated, purchase: purchase)
        }
        if claimed.emailConfirmationRequired { services.mailQueued() }
        return .json { json in
            json.string("login_url", services.url("/auth/login?token=" + claimed.loginToken))
            json.bool("account_switched", claimed.switched)
            json.bool("email_confirmation_required", claimed.emailConfirmationRequired)
            json.bool("auto_account_created", claimed.autoCreated)
            json.bool("is_email_set", claimed.account.email != nil)
            json.object("extra") { $0.string("obfuscated_account_id", claimed.account.obfuscatedID) }
            json.object("purchase") { item in
                item.string("platform", claimed.purchase.platform.rawValue)
                item.string("product_id", claimed.purchase.productID)
                item.string("status", claimed.purchase.status.rawValue)
                item.string("expires_at", claimed.purchase.expiresAt.map(Timestamp.rfc3339))
            }
        }
    }

    /// Sets `email` unconfirmed on the account and mails a confirmation; false when the account
    /// already has it confirmed.
    static func claimEmail(_ email: String, accountID: String, services: AppServices, on connection: Connection, now: Date) throws -> Bool {
        let account = try AccountRepository.require(id: accountID, on: connection)
        if account.email == email && account.emailVerified { return false }
        try AccountRepository.setEmail(email, accountID: accountID, on: connection, now: now)
        try AuthMail(services: services).queueConfirmation(accountID: accountID, email: email, on: connection)
        return true
    }

    /// `conversion_details` as JSON text (attribution), if the body has an object there.
    static func conversionDetails(_ body: [UInt8]) -> String? {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any],
            let details = object["conversion_details"] as? [String: Any], !details.isEmpty,
            let data = try? JSONSerialization.data(withJSONObject: details, options: [.sortedKeys])
        else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
