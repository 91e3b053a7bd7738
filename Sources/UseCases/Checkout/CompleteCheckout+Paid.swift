import Domain
import Foundation
import Storage

/// A paid checkout turned into a purchase, a link to the app user who started it, and exactly
/// one redemption code — whether the webhook or the browser gets here first, or both at once
/// (the single writer serializes them; the second finds the code the first issued). Runs in the
/// caller's write transaction (`write`).
extension CompleteCheckout {
    /// What the payment provider says about a paid checkout session.
    struct PaidCheckout: Sendable {
        var sessionID: String
        /// The purchase state (subscription or one-time payment).
        var snapshot: PurchaseSnapshot
        /// Other ids Stripe uses for the same purchase (payment intent, subscription).
        var aliases: [String]
        var email: String?
        /// `client_reference_id`.
        var clientReferenceID: String?
        /// The session's metadata (the checkout context, when we did not record the start).
        var metadata: [String: String]

        init(
            sessionID: String, snapshot: PurchaseSnapshot, aliases: [String], email: String?, clientReferenceID: String?,
            metadata: [String: String]
        ) {
            self.sessionID = sessionID
            self.snapshot = snapshot
            self.aliases = aliases
            self.email = email
            self.clientReferenceID = clientReferenceID
            self.metadata = metadata
        }
    }

    /// The state after completion.
    public struct Completed: Sendable {
        public let purchase: Purchase
        public let checkout: CheckoutRecord?
        /// The code issued now (email it in the same transaction), or nil when one existed.
        public let issued: CodeRepository.Issued?
        /// The newest code of the purchase (issued now or before).
        public let code: RedemptionCodeRecord
        /// The account the purchase was linked to because an app user started the checkout.
        public let linkedAccount: Account?

        public init(
            purchase: Purchase, checkout: CheckoutRecord?, issued: CodeRepository.Issued?, code: RedemptionCodeRecord, linkedAccount: Account?
        ) {
            self.purchase = purchase
            self.checkout = checkout
            self.issued = issued
            self.code = code
            self.linkedAccount = linkedAccount
        }
    }

    /// Applies a paid checkout (`checkout`: its row, read once by the caller in this transaction, nil
    /// when this deployment did not record its start). Idempotent: a repeat returns the same
    /// purchase and code.
    func completePaid(_ paid: PaidCheckout, checkout: CheckoutRecord?, on connection: Connection, now: Date) throws -> Completed {
        var snapshot = paid.snapshot
        snapshot.purchaserEmail = snapshot.purchaserEmail ?? paid.email
        snapshot.source = snapshot.source ?? .checkout
        let applied = try PurchaseRepository.apply(snapshot, on: connection, now: now)
        let purchaseID = applied.purchase.id
        // The funnel starts at the provider's payment time; a link below ends the reminders.
        try BuyerJourneyRepository.start(
            purchaseID: purchaseID, paidAt: snapshot.observedAt, linked: applied.purchase.accountID != nil, schedule: reminders,
            on: connection, now: now)
        for alias in [paid.sessionID] + paid.aliases where alias != snapshot.externalID {
            try PurchaseRepository.addAlias(platform: snapshot.platform, alias: alias, purchaseID: purchaseID, on: connection)
        }
        let appUserID = checkout?.appUserID ?? paid.clientReferenceID
        let attribution = checkout?.context ?? Self.json(paid.metadata)
        try PurchaseRepository.setOrigin(
            purchaseID: purchaseID, appUserID: appUserID, attribution: attribution, email: paid.email ?? checkout?.email,
            on: connection)
        // Reported once the origin (attribution) is stored, so the event carries it.
        try events.purchaseApplied(applied, on: connection, now: now)
        var linkedAccount: Account?
        if let appUserID, !appUserID.isEmpty {
            let current = try PurchaseRepository.require(id: purchaseID, on: connection)
            if current.accountID == nil {
                linkedAccount = try linkToStarter(current, appUserID: appUserID, checkout: checkout, on: connection, now: now)
            } else if let accountID = current.accountID {
                linkedAccount = try AccountRepository.find(id: accountID, on: connection)
            }
        }
        try CheckoutRepository.complete(sessionID: paid.sessionID, purchaseID: purchaseID, on: connection, now: now)
        var issued: CodeRepository.Issued?
        let code: RedemptionCodeRecord
        if let existing = try CodeRepository.latest(purchaseID: purchaseID, on: connection) {
            code = existing
        } else {
            let fresh = try CodeRepository.issue(purchaseID: purchaseID, ttl: codeTTL, vault: vault, on: connection, now: now)
            try events.codeIssued(fresh.record, purchase: try PurchaseRepository.require(id: purchaseID, on: connection), on: connection, now: now)
            issued = fresh
            code = fresh.record
        }
        return Completed(
            purchase: try PurchaseRepository.require(id: purchaseID, on: connection),
            checkout: checkout?.completed(purchaseID: purchaseID),
            issued: issued, code: code, linkedAccount: linkedAccount)
    }

    /// Links a paid purchase to the app user who started its checkout ("Who may act for an
    /// account"): when the checkout proved the app user (its secret is one bound to it, or the
    /// app user is new and the secret is bound now), or the app user has no secret bound (then the
    /// purchase is linked without proof). A checkout that named an app user whose secrets it did
    /// not carry links nothing: the purchase stays redeemable by its code. Returns the account.
    func linkToStarter(_ purchase: Purchase, appUserID: String, checkout: CheckoutRecord?, on connection: Connection, now: Date) throws -> Account? {
        try AccountRepository.lock(appUserID: appUserID, on: connection)
        let secret = checkout?.appUserSecretHash.map(InstallSecret.init(hash:))
        let proof = try AppUserSecretRepository.proof(appUserID: appUserID, presented: secret, bearerAccountID: nil, on: connection)
        guard proof.mayLink else { return nil }
        let (account, created) = try AccountRepository.findOrCreate(
            appUserID: appUserID, joinedThrough: purchase.id, secrets: secrets, on: connection, now: now)
        if created {
            try events.accountCreated(account.id, on: connection, now: now)
            if let secret { try AppUserSecretRepository.bind(secret, appUserID: appUserID, deviceID: nil, on: connection, now: now) }
        }
        try PurchaseRepository.link(purchaseID: purchase.id, to: account.id, proved: proof.provesOnWrite, on: connection, now: now)
        try events.purchaseLinked(purchase, to: account.id, on: connection, now: now)
        // An account without an address asks for the one it paid with (as a store claim with
        // customer details does): the app shows it. A request proves nothing: only a mailed link
        // or code confirms it, and only a confirmed address opens an account (`AddressSignInTarget`).
        if account.email == nil, let email = purchase.purchaserEmail {
            try AccountRepository.requestEmail(email, accountID: account.id, on: connection, now: now)
        }
        return try AccountRepository.find(id: account.id, on: connection) ?? account
    }

    /// Stripe's metadata as the purchase's attribution (a JSON object text), nil when it has none.
    static func json(_ metadata: [String: String]) -> String? {
        metadata.isEmpty ? nil : StartCheckout.contextJSON(metadata)
    }
}
