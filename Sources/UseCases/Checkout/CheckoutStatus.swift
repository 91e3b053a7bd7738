import Domain
import Foundation
import Storage

/// `GET /api/v1/checkout/{checkout_context_id}`: how far a checkout the app started has got.
/// An id not seen yet is `pending` (the browser may not have reached `/checkout/start`). Once
/// paid, a caller that proves the app user who started the checkout (its install secret, or a
/// bearer of the account holding the purchase) gets the whole success object of a redemption —
/// the purchase, the account, the purchase's code while it can still be redeemed, and a session
/// for the account — so an app killed during checkout signs in without typing the code. A caller
/// that only names that app user gets the entitlements and `session_required`; anyone else
/// learns the status alone ("Who may act for an account").
public struct CheckoutStatus: Sendable {
    /// API.md's `pending | complete | failed`.
    public enum Status: Sendable {
        case pending
        case failed
        /// Paid: what this caller may see.
        case complete(Shown)
    }

    /// What a caller sees of a paid checkout.
    public enum Shown: Sendable {
        /// The caller proved the account holding the purchase.
        case proved(Result)
        /// The caller named the app user who started it, and proved nothing: the entitlements the
        /// purchase grants, no code, no purchaser, no account.
        case named(isEntitled: Bool, entitlements: [Entitlement])
        /// Anyone else: the status alone.
        case statusOnly
    }

    /// What a caller that proved the account sees.
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
        public let secret: InstallSecret?
        public let bearer: String?

        public init(appUserID: String?, secret: InstallSecret? = nil, bearer: String?) {
            self.appUserID = appUserID
            self.secret = secret
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
        enum Look: Sendable { case proved, named, other }
        let state = try await database.read { connection -> (CheckoutRecord, Purchase?, Look)? in
            guard let checkout = try CheckoutRepository.find(contextID: contextID, on: connection) else { return nil }
            let purchase = try checkout.purchaseID.flatMap { try PurchaseRepository.find(id: $0, on: connection) }
            let bearerAccount = try BearerSession.account(for: caller.bearer, on: connection, now: now)
            if let bearerAccount, bearerAccount == purchase?.accountID { return (checkout, purchase, .proved) }
            guard let starter = checkout.appUserID, starter == caller.appUserID else { return (checkout, purchase, .other) }
            // The starter's secret (or a bearer of its account) proves it; its account must hold the purchase.
            let holder = try AccountRepository.find(appUserID: starter, on: connection)?.id
            let proof = try AppUserSecretRepository.proof(
                appUserID: starter, presented: caller.secret, bearerAccountID: bearerAccount, on: connection)
            let proved = proof == .proven && holder != nil && holder == purchase?.accountID
            return (checkout, purchase, proved ? .proved : .named)
        }
        guard let (checkout, purchase, look) = state else { return .pending }
        switch (checkout.status, purchase) {
        case ("complete", let purchase?):
            switch look {
            case .proved:
                guard let accountID = purchase.accountID else { return .complete(.statusOnly) }
                return .complete(.proved(try await result(purchaseID: purchase.id, accountID: accountID, now: now)))
            case .named:
                return .complete(.named(isEntitled: purchase.isEntitled(at: now), entitlements: catalog.entitlements(for: [purchase], at: now)))
            case .other:
                return .complete(.statusOnly)
            }
        case ("expired", _), ("failed", _):
            return .failed
        default:
            return .pending
        }
    }

    /// The success object of a caller that proved the account, with a fresh session for it.
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
