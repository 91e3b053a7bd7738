import Domain
import Foundation
import Storage

/// `GET /api/v1/entitlements`: what the signed-in account (or an app user) may use. A read by
/// name gives entitlements only: `account_id` only to a caller that proves the account (its bearer,
/// or the app user's bound secret: "Who may act for an account"). An app user's entitlements are
/// its account's (its purchases and operators' manual grants) and those of purchases it holds as a
/// guest (`PurchaseGuestRepository`).
public struct ListEntitlements: Sendable {
    /// Whose entitlements.
    public enum Subject: Sendable {
        case bearer(String)
        /// An app user named, with the install secret the call carried, if any.
        case appUser(String, secret: InstallSecret?)
    }

    /// The account (nil when the app user is unknown or the caller did not prove it) and the
    /// entitlements.
    public struct Listing: Sendable {
        public let accountID: String?
        public let entitlements: [Entitlement]
    }

    let database: Database
    let catalog: EntitlementCatalog

    public init(database: Database, catalog: EntitlementCatalog) {
        self.database = database
        self.catalog = catalog
    }

    /// - Throws: `UseCaseError.unauthorized` for an invalid bearer token, `StorageError`.
    public func list(for subject: Subject, now: Date) async throws -> Listing {
        let (accountID, purchases, manual) = try await database.read { connection -> (String?, [Purchase], [ManualEntitlement]) in
            switch subject {
            case .bearer(let token):
                guard let accountID = try BearerSession.account(for: token, on: connection, now: now) else { return (nil, [], []) }
                return (
                    accountID, try PurchaseRepository.forAccount(accountID, on: connection),
                    try ManualEntitlementRepository.active(accountID: accountID, on: connection, now: now)
                )
            case .appUser(let appUserID, let secret):
                guard let account = try AccountRepository.find(appUserID: appUserID, on: connection) else { return (nil, [], []) }
                let proof = try AppUserSecretRepository.proof(appUserID: appUserID, presented: secret, bearerAccountID: nil, on: connection)
                let purchases =
                    try PurchaseRepository.forAccount(account.id, on: connection)
                    + PurchaseGuestRepository.purchases(appUserID: appUserID, on: connection)
                return (
                    proof == .proven ? account.id : nil, purchases,
                    try ManualEntitlementRepository.active(accountID: account.id, on: connection, now: now)
                )
            }
        }
        return Listing(accountID: accountID, entitlements: catalog.entitlements(for: purchases, manual: manual, at: now))
    }
}
