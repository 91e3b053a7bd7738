import Domain
import Foundation
import Storage

/// `GET /api/v1/checkout/{checkout_context_id}`: how far a checkout the app started has got.
/// An id not seen yet is `pending` (the browser may not have reached `/checkout/start`); the
/// purchase is shown only to the app user who started the checkout (or a bearer of the account
/// holding it); anyone else learns the status alone.
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
        public let account: Account?
        public let entitlements: [Entitlement]
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

    public init(database: Database, catalog: EntitlementCatalog) {
        self.database = database
        self.catalog = catalog
    }

    /// - Throws: `UseCaseError.unauthorized` for an invalid bearer token, `StorageError`.
    public func status(contextID: String, caller: Caller, now: Date) async throws -> Status {
        let state = try await database.read { connection -> (CheckoutRecord, Purchase?, Account?, Bool)? in
            guard let checkout = try CheckoutRepository.find(contextID: contextID, on: connection) else { return nil }
            let purchase = try checkout.purchaseID.flatMap { try PurchaseRepository.find(id: $0, on: connection) }
            let account = try purchase?.accountID.flatMap { try AccountRepository.find(id: $0, on: connection) }
            let bearerAccount = try BearerSession.account(for: caller.bearer, on: connection, now: now)
            let isStarter = (checkout.appUserID != nil && checkout.appUserID == caller.appUserID)
                || (bearerAccount != nil && bearerAccount == account?.id)
            return (checkout, purchase, account, isStarter)
        }
        guard let (checkout, purchase, account, isStarter) = state else { return .pending }
        switch (checkout.status, purchase) {
        case ("complete", let purchase?):
            guard isStarter else { return .complete(nil) }
            return .complete(Result(purchase: purchase, account: account, entitlements: catalog.entitlements(for: [purchase], at: now)))
        case ("expired", _), ("failed", _):
            return .failed
        default:
            return .pending
        }
    }
}
