import Domain
import Foundation
import Storage

/// `GET /api/v1/entitlements`: what the signed-in account (or an app user's account) may use.
public struct ListEntitlements: Sendable {
    /// Whose entitlements.
    public enum Subject: Sendable {
        case bearer(String)
        case appUser(String)
    }

    /// The account (nil when the app user is unknown) and its entitlements.
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
        let (accountID, purchases) = try await database.read { connection -> (String?, [Purchase]) in
            let accountID: String?
            switch subject {
            case .bearer(let token): accountID = try BearerSession.account(for: token, on: connection, now: now)
            case .appUser(let appUserID): accountID = try AccountRepository.find(appUserID: appUserID, on: connection)?.id
            }
            guard let accountID else { return (nil, []) }
            return (accountID, try PurchaseRepository.forAccount(accountID, on: connection))
        }
        return Listing(accountID: accountID, entitlements: catalog.entitlements(for: purchases, at: now))
    }
}
