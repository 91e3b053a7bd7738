import Domain
import Foundation
import Integrations
import Storage

/// Verifies a purchase with its store and records it. Used by `/receipts`,
/// `/api/v1/iap/gonative` and (next) `/api/v1/iap/apple|google`.
///
/// Each `appStore(...)` / `playStore(...)` / `stripe(...)` call asks the store and returns a
/// `VerifiedStorePurchase`; nothing is written. Then `record(_:_:)` applies it in one write
/// transaction together with the caller's effects (account, link, attribution) and, only after
/// that transaction committed, acknowledges a Google Play purchase that still needs it.
///
/// Errors (all `UseCaseError`): the store rejects the purchase → `422 invalid_receipt`; the store is
/// unreachable → `502 upstream_unavailable` (retryable, nothing written); the store is not
/// configured → `503 upstream_unavailable` naming the configuration keys (`StoreErrors`).
///
/// **Play: subscription or one-time product.** The sku alone does not say which it is, so
/// `playStore` reads `subscriptionsv2` first and falls back to `products/{sku}` when Google does
/// not know the token as a subscription. A subscription whose line items do not include the sku
/// sent is refused (`422 unprocessable`, as a mismatched App Store or Stripe product): the client
/// confused two purchases.
///
/// **Apple environments.** A deployment configured for Production accepts Sandbox data too
/// where Apple's own flows send it (App Review and TestFlight buy in the sandbox): a signed
/// transaction that is Sandbox is verified as Sandbox, the Server API client and verifyReceipt
/// fall back to the sandbox the same way. The stored purchase keeps `environment: Sandbox`.
public struct StorePurchaseVerifier: Sendable {
    let stores: StoreClients
    let stripe: StripeClient?
    let database: Database
    let now: @Sendable () -> Date
    /// Where purchases created or changed by a claim are reported.
    let events: EventQueue
    /// Expiries of non-renewing subscriptions.
    let durations: ProductDurations
    /// Set where verifyReceipt is the only way to ask Apple: each verified receipt is kept, sealed,
    /// for its App Store subscriptions (`AppStoreReceiptRepository`; the reconciler re-verifies it).
    let receiptVault: AppStoreReceiptVault?

    /// A verifier over the configured store clients (and Stripe), the database and the clock.
    /// - Parameter receiptVault: given only where no App Store Server API key is configured.
    public init(
        stores: StoreClients, stripe: StripeClient?, database: Database, now: @escaping @Sendable () -> Date,
        durations: ProductDurations = ProductDurations(days: [:]), events: EventQueue = .disabled, receiptVault: AppStoreReceiptVault? = nil
    ) {
        self.receiptVault = receiptVault
        self.durations = durations
        self.events = events
        self.stores = stores
        self.stripe = stripe
        self.database = database
        self.now = now
    }

    // MARK: - App Store

    /// Verifies a StoreKit 2 signed transaction (`subscription_transaction_jws`).
    /// - Throws: `UseCaseError` (422 invalid_receipt, 503 when App Store verification is not configured).
    public func appStore(signedTransaction: String) async throws -> VerifiedStorePurchase {
        try await StoreErrors.mapping {
            guard let verifier = stores.appleVerifier else { throw StoreErrors.notConfigured(StoreClients.Missing.appleVerifier) }
            let now = self.now()
            let transaction: AppStoreTransaction
            do {
                transaction = try verifier.verifyTransaction(signedTransaction, now: now)
            } catch AppStoreError.verification(let error) where error.kind == .wrongEnvironment && verifier.environment == .production {
                transaction = try verifier.withEnvironment(.sandbox).verifyTransaction(signedTransaction, now: now)
            }
            var verified = VerifiedStorePurchase(snapshot: try withDuration(try transaction.snapshot(now: now), now: now))
            verified.isFamilyShared = transaction.inAppOwnershipType == "FAMILY_SHARED"
            return verified
        }
    }

    /// Looks a transaction up with the App Store Server API (production, then sandbox): Get
    /// Transaction Info, and for an auto-renewable subscription Get All Subscription Statuses, whose
    /// latest transaction and renewal info are its present state (Get Transaction Info of an
    /// original id is the *first* period). Other purchases keep Get Transaction Info's answer, with
    /// `products_duration_days` applied.
    /// - Throws: `UseCaseError` (422 invalid_receipt, 502 upstream_unavailable, 503 not configured).
    public func appStore(transactionID: String) async throws -> VerifiedStorePurchase {
        try await StoreErrors.mapping {
            guard let api = stores.appStoreAPI else { throw StoreErrors.notConfigured(StoreClients.Missing.appStoreAPI) }
            let transaction = try await api.transaction(id: transactionID)
            if transaction.isAutoRenewable, let original = transaction.originalTransactionID {
                return try await subscriptionState(api.subscriptionStatus(transactionID: original))
            }
            let now = self.now()
            return VerifiedStorePurchase(snapshot: try withDuration(try transaction.snapshot(now: now), now: now))
        }
    }

    /// The present state of the App Store subscription `originalTransactionID` (Get All
    /// Subscription Statuses: its latest transaction, renewal info and status), for a subscription
    /// whose period ended without news. Nothing is written.
    /// - Throws: `UseCaseError` (422 invalid_receipt, also for an id that is not an auto-renewable
    ///   subscription; 502 upstream_unavailable; 503 not configured).
    public func appStoreSubscription(originalTransactionID: String) async throws -> VerifiedStorePurchase {
        try await StoreErrors.mapping {
            guard let api = stores.appStoreAPI else { throw StoreErrors.notConfigured(StoreClients.Missing.appStoreAPI) }
            return try await subscriptionState(api.subscriptionStatus(transactionID: originalTransactionID))
        }
    }

    private func subscriptionState(_ status: AppStoreSubscriptionStatus) throws -> VerifiedStorePurchase {
        let now = self.now()
        return VerifiedStorePurchase(snapshot: try withDuration(try status.snapshot(now: now), now: now))
    }

    /// Verifies a base64 app receipt with Apple's verifyReceipt: every purchase in it (the newest
    /// as `snapshot`, the others `alongside`), with `products_duration_days` applied to the items
    /// that do not expire.
    /// - Throws: `UseCaseError` (422 invalid_receipt, 502 upstream_unavailable, 503 not configured).
    public func appStore(receiptBase64: String) async throws -> VerifiedStorePurchase {
        try await StoreErrors.mapping { try await appStoreReceipt(receiptBase64) }
    }

    /// `appStore(receiptBase64:)` with the store's own errors: GoNative's claim reads Apple's
    /// refusal (`AppStoreError.receipt`: its `status` and reason) to log and return it.
    /// - Throws: `AppStoreError`, `UpstreamError`, `UseCaseError` (503 not configured).
    func appStoreReceipt(_ receiptBase64: String) async throws -> VerifiedStorePurchase {
        guard let client = stores.verifyReceipt else { throw StoreErrors.notConfigured(StoreClients.Missing.verifyReceipt) }
        let receipt = try await client.verify(receiptBase64: receiptBase64)
        let now = self.now()
        let snapshots = receipt.allPurchases.map { $0.snapshot(now: now, durations: durations) }
        return VerifiedStorePurchase(snapshot: snapshots[0], alongside: Array(snapshots.dropFirst()), receipt: receiptBase64)
    }

    /// Verifies a base64 app receipt and picks the purchase holding `transactionID` (StoreKit 1
    /// integrations, Cleeng's `transactionId` + `receiptData`): that purchase's newest state as
    /// `snapshot`, the receipt's others `alongside`.
    /// - Throws: `UseCaseError` (422 invalid_receipt, also when the receipt holds no such
    ///   transaction; 502 upstream_unavailable; 503 not configured).
    public func appStore(receiptBase64: String, transactionID: String) async throws -> VerifiedStorePurchase {
        try await StoreErrors.mapping {
            guard let client = stores.verifyReceipt else { throw StoreErrors.notConfigured(StoreClients.Missing.verifyReceipt) }
            let receipt = try await client.verify(receiptBase64: receiptBase64)
            let purchases = receipt.allPurchases
            guard let index = purchases.firstIndex(where: { $0.holds(transactionID: transactionID) }) else {
                throw StoreErrors.invalidReceipt("The receipt holds no transaction \(transactionID); nothing was recorded.")
            }
            let now = self.now()
            var others = purchases
            let claimed = others.remove(at: index)
            return VerifiedStorePurchase(
                snapshot: claimed.snapshot(now: now, durations: durations), alongside: others.map { $0.snapshot(now: now, durations: durations) },
                receipt: receiptBase64)
        }
    }

    /// A non-renewing subscription gets its configured expiry; without one it is refused (503
    /// `not_configured`, naming the key), never recorded as active forever.
    private func withDuration(_ snapshot: PurchaseSnapshot, now: Date) throws -> PurchaseSnapshot {
        do {
            return try durations.applied(to: snapshot, now: now)
        } catch let missing as DomainError {
            guard case .durationMissing(let productID)? = missing.reason else { throw missing }
            throw StoreErrors.notConfigured("This server cannot record \(productID) yet: \(missing.description).")
        }
    }

    // MARK: - Google Play

    /// Reads a Play purchase: a subscription (`subscriptionsv2`), else a one-time product
    /// `productID`. An unacknowledged paid purchase carries its `acknowledgement`.
    /// - Throws: `UseCaseError` (422 invalid_receipt, 502 upstream_unavailable, 503 not configured).
    public func playStore(purchaseToken: String, productID: String) async throws -> VerifiedStorePurchase {
        try await StoreErrors.mapping { try await playPurchase(purchaseToken: purchaseToken, productID: productID) }
    }

    /// `playStore` with the store's own errors (the RTDN webhook maps them differently).
    func playPurchase(purchaseToken: String, productID: String?) async throws -> VerifiedStorePurchase {
        guard let play = stores.googlePlay else { throw StoreErrors.notConfigured(StoreClients.Missing.googlePlay) }
        do {
            return try await playSubscription(purchaseToken: purchaseToken, expectedProductID: productID)
        } catch let error as GooglePlayError where error.kind == .purchaseNotFound {
            // `subscription:base_plan` names a subscription only: there is no product to try.
            guard let productID, !productID.isEmpty, !productID.contains(":") else {
                throw GooglePlayError(
                    .purchaseNotFound, "the token is not a subscription, and no product id was sent to look it up as a one-time product")
            }
            let product = try await play.product(productID: productID, purchaseToken: purchaseToken)
            return VerifiedStorePurchase(
                snapshot: product.snapshot(productID: productID, purchaseToken: purchaseToken, observedAt: now()),
                acknowledgement: product.needsAcknowledgement
                    ? PlayAcknowledgement(kind: .product, productID: productID, purchaseToken: purchaseToken) : nil)
        }
    }

    /// Reads a Play subscription; with `expectedProductID` (`product` or `product:base_plan`), one
    /// of its line items must be it.
    /// - Throws: `GooglePlayError`, `UpstreamError`; `UseCaseError.unprocessable` when no line item
    ///   is `expectedProductID`.
    func playSubscription(purchaseToken: String, expectedProductID: String?) async throws -> VerifiedStorePurchase {
        guard let play = stores.googlePlay else { throw StoreErrors.notConfigured(StoreClients.Missing.googlePlay) }
        let subscription = try await play.subscription(purchaseToken: purchaseToken)
        if let expected = expectedProductID, !expected.isEmpty, !subscription.lineItems.contains(where: { $0.matches(expected) }) {
            let bought = subscription.lineItems.map { [$0.productID, $0.basePlanID].compactMap { $0 }.joined(separator: ":") }
            // The store knows the purchase; the caller named another product: the same 422
            // `unprocessable` as a mismatched App Store or Stripe product (`naming(storeProductID:of:)`).
            throw UseCaseError.unprocessable(
                "The purchase token is a subscription to \(bought.joined(separator: ", ")), not \(expected); nothing was recorded.")
        }
        let snapshot = subscription.snapshot(purchaseToken: purchaseToken, observedAt: now())
        let acknowledgement =
            subscription.needsAcknowledgement
            ? PlayAcknowledgement(kind: .subscription, productID: snapshot.productID, purchaseToken: purchaseToken) : nil
        return VerifiedStorePurchase(snapshot: snapshot, acknowledgement: acknowledgement)
    }

    /// Reads a one-time Play product purchase.
    /// - Throws: `GooglePlayError`, `UpstreamError`.
    func playProduct(purchaseToken: String, productID: String) async throws -> VerifiedStorePurchase {
        guard let play = stores.googlePlay else { throw StoreErrors.notConfigured(StoreClients.Missing.googlePlay) }
        let product = try await play.product(productID: productID, purchaseToken: purchaseToken)
        return VerifiedStorePurchase(
            snapshot: product.snapshot(productID: productID, purchaseToken: purchaseToken, observedAt: now()),
            acknowledgement: product.needsAcknowledgement
                ? PlayAcknowledgement(kind: .product, productID: productID, purchaseToken: purchaseToken) : nil)
    }

    /// Sends a pending acknowledgement. When Google refuses it because another request (the
    /// app's call and the RTDN arrive together) acknowledged first, that is success.
    /// - Throws: `GooglePlayError`, `UpstreamError`.
    func acknowledge(_ acknowledgement: PlayAcknowledgement) async throws {
        guard let play = stores.googlePlay else { throw StoreErrors.notConfigured(StoreClients.Missing.googlePlay) }
        do {
            switch acknowledgement.kind {
            case .subscription:
                try await play.acknowledgeSubscription(subscriptionID: acknowledgement.productID, purchaseToken: acknowledgement.purchaseToken)
            case .product:
                try await play.acknowledgeProduct(productID: acknowledgement.productID, purchaseToken: acknowledgement.purchaseToken)
            }
        } catch let error as GooglePlayError where error.kind == .requestRejected {
            let stillPending: Bool
            switch acknowledgement.kind {
            case .subscription: stillPending = try await play.subscription(purchaseToken: acknowledgement.purchaseToken).needsAcknowledgement
            case .product:
                stillPending = try await play.product(productID: acknowledgement.productID, purchaseToken: acknowledgement.purchaseToken)
                    .needsAcknowledgement
            }
            if stillPending { throw error }
        }
    }

    // MARK: - Stripe

    /// Reads a Stripe subscription (`sub_...`).
    /// - Throws: `UseCaseError` (422 invalid_receipt, 502 upstream_unavailable, 503 not configured).
    public func stripe(subscriptionID: String) async throws -> VerifiedStorePurchase {
        try await StoreErrors.mapping {
            guard let stripe else { throw StoreErrors.notConfigured(StoreClients.Missing.stripe) }
            let subscription = try await stripe.retrieveSubscription(id: subscriptionID)
            return VerifiedStorePurchase(
                snapshot: subscription.snapshot(observedAt: now(), purchaserEmail: nil), productAliases: subscription.productIDs)
        }
    }

    /// Reads a paid Stripe Checkout Session (`cs_...`): its subscription, or its payment intent
    /// with the price of its line item.
    /// - Throws: `UseCaseError` (422 invalid_receipt for an unpaid session or one that stands for
    ///   no purchase, 502 upstream_unavailable, 503 not configured).
    public func stripe(checkoutSessionID: String) async throws -> VerifiedStorePurchase {
        try await StoreErrors.mapping {
            guard let stripe else { throw StoreErrors.notConfigured(StoreClients.Missing.stripe) }
            let session = try await stripe.retrieveCheckoutSession(id: checkoutSessionID, expandSubscription: true, expandLineItems: true)
            guard session.isPaid else {
                throw StoreErrors.invalidReceipt("The checkout session \(checkoutSessionID) is not paid; nothing was recorded.")
            }
            var snapshot: PurchaseSnapshot?
            var products: [String] = []
            switch session.mode {
            case .subscription:
                var subscription = session.subscription
                if subscription == nil, let id = session.subscriptionID { subscription = try await stripe.retrieveSubscription(id: id) }
                snapshot = subscription?.snapshot(observedAt: now(), purchaserEmail: session.email)
                products = subscription?.productIDs ?? []
            case .payment:
                let price = session.lineItemPriceIDs.first ?? session.metadata["price_id"]
                snapshot = price.flatMap { session.paymentSnapshot(productID: $0, observedAt: now()) }
                products = Array(session.lineItemProductIDs.prefix(1))
            default:
                snapshot = nil
            }
            guard let snapshot else {
                throw StoreErrors.invalidReceipt(
                    "The checkout session \(checkoutSessionID) holds no subscription or payment to record (mode \(session.mode)).")
            }
            return VerifiedStorePurchase(snapshot: snapshot, productAliases: products)
        }
    }

    // MARK: - Recording

    /// Applies `purchase` (its `snapshot`, then every snapshot `alongside`) and runs `effects` with
    /// the first in one write transaction; after it commits, sends
    /// the pending Play acknowledgement. Order, for crash safety: a crash before the commit
    /// leaves nothing (the purchase is neither stored nor acknowledged; a retry starts over); a
    /// crash after it leaves a stored, unacknowledged purchase, which the next read of it (a
    /// retry, an RTDN) finds `acknowledgementState` pending and acknowledges. Applying is
    /// idempotent on (platform, external id), so a retry never records it twice, and the
    /// acknowledgement is decided from Google's state each time, so it is sent once.
    /// - Throws: `UseCaseError` from `effects` (the transaction rolls back); `502 upstream_unavailable`
    ///   when the acknowledgement cannot be sent (the purchase is stored; retrying the request
    ///   acknowledges it).
    public func record<T: Sendable>(
        _ purchase: VerifiedStorePurchase,
        _ effects: @escaping @Sendable (Connection, PurchaseRepository.Applied) throws -> T
    ) async throws -> T {
        let now = self.now()
        let events = self.events
        let vault = receiptVault
        let result = try await database.write { connection in
            // A Play purchase Google voided stays refunded whatever a later read of its token says.
            let applied = try PurchaseRepository.apply(try ApplyPlayVoid.keepingVoid(purchase.snapshot, on: connection), on: connection, now: now)
            try events.purchaseApplied(applied, on: connection, now: now)
            var recorded = [applied.purchase]
            for snapshot in purchase.alongside {
                let other = try PurchaseRepository.apply(snapshot, on: connection, now: now)
                try events.purchaseApplied(other, on: connection, now: now)
                recorded.append(other.purchase)
            }
            if let receipt = purchase.receipt, let vault {
                for subscription in recorded where subscription.platform == .appStore && subscription.expiresAt != nil {
                    try AppStoreReceiptRepository.keep(receipt, purchaseID: subscription.id, vault: vault, on: connection, now: now)
                }
            }
            return try effects(connection, applied)
        }
        if let acknowledgement = purchase.acknowledgement {
            try await StoreErrors.mapping { try await acknowledge(acknowledgement) }
        }
        return result
    }
}
