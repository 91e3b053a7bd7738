import Domain
import Foundation
import Storage

/// `GET /api/v1/checkout/{checkout_context_id}`: how far a checkout the app started has got.
/// An id not seen yet is `pending` (the browser may not have reached `/checkout/start`). Once
/// paid, the app user who started the checkout (or a bearer of the account holding it) gets the
/// whole success object of a redemption — the purchase, the account, the purchase's code while it
/// can still be redeemed, and a session for the account — so an app killed during checkout signs
/// in without typing the code; anyone else learns the status alone.
public struct CheckoutStatus: Sendable {
    /// API.md's `pending | complete | failed`.
    public enum Status: Sendable {
        case pending
        case failed
        /// Paid: the purchase, the account holding it and its entitlements, for the app user who
        /// started the checkout; nil for anyone else.
        case complete(Result?)
    }

    /// What the app user who started a paid checkout sees.
    public struct Result: Sendable {
        public let purchase: Purchase
        public let account: Account
        public let entitlements: [Entitlement]
        /// The purchase's newest code while it can be redeemed; nil once redeemed, replaced,
        /// revoked or expired.
        public let code: RedemptionCode?
        /// A session for `account`.
        public let tokens: SessionRepository.Tokens
    }

    /// Who is asking.
    public struct Caller: Sendable {
        public let appUserID: String?
        public let bearer: String?

        public init(appUserID: String?, bearer: String?) {
            self.appUserID = appUserID
            self.bearer = bearer
        }
    }

    let database: Database
    let catalog: EntitlementCatalog
    let vault: CodeVault

    public init(database: Database, catalog: EntitlementCatalog, vault: CodeVault) {
        self.database = database
        self.catalog = catalog
        self.vault = vault
    }

    /// - Throws: `UseCaseError.unauthorized` for an invalid bearer token, `StorageError`.
    public func status(contextID: String, caller: Caller, now: Date) async throws -> Status {
        let state = try await database.read { connection -> (CheckoutRecord, Purchase?, Bool)? in
            guard let checkout = try CheckoutRepository.find(contextID: contextID, on: connection) else { return nil }
            let purchase = try checkout.purchaseID.flatMap { try PurchaseRepository.find(id: $0, on: connection) }
            let bearerAccount = try BearerSession.account(for: caller.bearer, on: connection, now: now)
            let isStarter = (checkout.appUserID != nil && checkout.appUserID == caller.appUserID)
                || (bearerAccount != nil && bearerAccount == purchase?.accountID)
            return (checkout, purchase, isStarter)
        }
        guard let (checkout, purchase, isStarter) = state else { return .pending }
        switch (checkout.status, purchase) {
        case ("complete", let purchase?):
            guard isStarter, let accountID = purchase.accountID else { return .complete(nil) }
            return .complete(try await result(purchaseID: purchase.id, accountID: accountID, now: now))
        case ("expired", _), ("failed", _):
            return .failed
        default:
            return .pending
        }
    }

    /// The starter's success object, with a fresh session for the account holding the purchase.
    private func result(purchaseID: String, accountID: String, now: Date) async throws -> Result {
        let vault = self.vault
        let catalog = self.catalog
        let draft = try SessionRepository.draft(at: now)
        return try await database.write { connection in
            let purchase = try PurchaseRepository.require(id: purchaseID, on: connection)
            let account = try AccountRepository.require(id: purchase.accountID ?? accountID, on: connection)
            let tokens = try SessionRepository.issue(draft, accountID: account.id, deviceID: nil, on: connection, now: now)
            let latest = try CodeRepository.latest(purchaseID: purchase.id, on: connection)
            let code = try latest.flatMap { record in
                record.status == .live && record.expiresAt > now ? try CodeRepository.reveal(record, vault: vault) : nil
            }
            return Result(
                purchase: purchase, account: account, entitlements: catalog.entitlements(for: [purchase], at: now), code: code, tokens: tokens)
        }
    }
}
