import Domain
import Foundation
import HTTPServer
import Storage

/// `POST /receipts`: a partner backend reports a purchase for one of its users (API.md
/// "Server-to-server"). Headers `X-API-KEY` (a server key; else `401`) and `X-PLATFORM-TYPE`.
///
/// The purchase is verified with its store (`StorePurchaseVerifier`: App Store Server API for
/// `original_transaction_id`, verifyReceipt for `receipt_data`, the Play Developer API for
/// `purchase_token`, `GET /v1/subscriptions/{id}` for a Stripe subscription), then, in one
/// transaction: stored (idempotent on platform + store id), the `user_id`'s account found or
/// created, the purchase linked to it (`redemption.on_other_user` when another account holds it:
/// `switch` moves the app user to that account, `transfer` moves the purchase, `reject` is
/// `409 purchase_belongs_to_other_user`), and `ply_context` stored as the purchase's attribution
/// (first report wins). A repeat creates nothing new.
///
/// Answer: `{"user_id", "account_id", "account_switched", "purchase": {"platform", "product_id",
/// "status", "expires_at"}, "entitlements": [{"id", "active", "expires_at", "source"}]}` with the
/// entitlements of the account that now holds the purchase.
struct ReceiptsRoute {
    let services: AppServices

    private struct Recorded: Sendable {
        let accountID: String
        let switched: Bool
        let purchase: Purchase
        let entitlements: [Entitlement]
    }

    func register(on router: inout Router) {
        let keys = ServerKeyCheck(serverKeys: services.config.apiKeys.serverKeys)
        router.add(.post, "/receipts", maxBodyBytes: 512 * 1024) { [services] request, context in
            try keys.verify(request)
            let input = try ReceiptsRequest(request, preferTransactionLookup: services.stores.appStoreAPI != nil)
            let verifier = StorePurchaseVerifier(services: services)
            let verified: VerifiedStorePurchase
            switch input.source {
            case .appStoreTransaction(let id): verified = try await verifier.appStore(transactionID: id)
            case .appStoreReceipt(let receipt): verified = try await verifier.appStore(receiptBase64: receipt)
            case .playStore(let token, let productID): verified = try await verifier.playStore(purchaseToken: token, productID: productID)
            case .stripeSubscription(let id): verified = try await verifier.stripe(subscriptionID: id)
            }
            let now = services.now()
            let policy = PurchaseClaim.policy(services)
            let recorded = try await verifier.record(verified) { connection, applied in
                let outcome: PurchaseClaim.Outcome
                if policy == .switch, let owner = applied.purchase.accountID,
                    try AccountRepository.find(appUserID: input.userID, on: connection) == nil
                {
                    // A new app user of a purchase someone holds joins that account: no empty account is made.
                    try AccountRepository.link(appUserID: input.userID, to: owner, on: connection, now: now)
                    outcome = .held(accountID: owner, switched: true)
                } else {
                    let (account, _) = try AccountRepository.findOrCreate(appUserID: input.userID, secrets: services.secrets, on: connection, now: now)
                    outcome = try PurchaseClaim.claim(
                        applied.purchase, for: account.id, appUserID: input.userID, policy: policy, on: connection, now: now)
                }
                guard case .held(let holder, let switched) = outcome else {
                    throw APIError(status: .conflict, code: "purchase_belongs_to_other_user",
                                   message: "This purchase belongs to another account.")
                }
                try PurchaseRepository.setOrigin(
                    purchaseID: applied.purchase.id, appUserID: input.userID, attribution: input.attribution, email: nil, on: connection)
                let purchases = try PurchaseRepository.forAccount(holder, on: connection)
                return Recorded(
                    accountID: holder, switched: switched, purchase: try PurchaseRepository.require(id: applied.purchase.id, on: connection),
                    entitlements: services.catalog.entitlements(for: purchases, at: now))
            }
            context.logger.info("receipt_recorded", [
                ("platform", .string(recorded.purchase.platform.rawValue)), ("purchase_id", .string(recorded.purchase.id)),
                ("account_id", .string(recorded.accountID)),
            ])
            return .json { json in
                json.string("user_id", input.userID)
                json.string("account_id", recorded.accountID)
                json.bool("account_switched", recorded.switched)
                StoreResponses.writePurchase(recorded.purchase, into: &json)
                StoreResponses.writeEntitlements(recorded.entitlements, into: &json)
            }
        }
    }
}

/// JSON pieces shared by the store routes.
enum StoreResponses {
    /// `"purchase": {"platform", "product_id", "status", "expires_at"}`.
    static func writePurchase(_ purchase: Purchase, into json: inout JSONWriter) {
        json.object("purchase") { item in
            item.string("platform", purchase.platform.rawValue)
            item.string("product_id", purchase.productID)
            item.string("status", purchase.status.rawValue)
            item.string("expires_at", purchase.expiresAt.map(Timestamp.rfc3339))
        }
    }

    /// `"entitlements": [{"id", "active", "expires_at", "source"}]`.
    static func writeEntitlements(_ entitlements: [Entitlement], into json: inout JSONWriter) {
        json.array("entitlements", entitlements) { json, entitlement in
            json.object { item in
                item.string("id", entitlement.id)
                item.bool("active", entitlement.active)
                item.string("expires_at", entitlement.expiresAt.map(Timestamp.rfc3339))
                item.string("source", entitlement.source.rawValue)
            }
        }
    }
}
