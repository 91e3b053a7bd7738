import Domain
import Foundation
import Mail
import Storage

/// The data export of a signed-in account (API.md "Account deletion and data export"): one
/// document of everything held about it, read in one transaction, with what its purchases
/// grant now. Codes appear by id and hint, never in full; tokens and passwords never.
public struct ExportAccount: Sendable {
    let database: Database
    let catalog: EntitlementCatalog

    public init(database: Database, catalog: EntitlementCatalog) {
        self.database = database
        self.catalog = catalog
    }

    /// What an export holds.
    public struct Document: Sendable {
        public let records: AccountRecords
        public let entitlements: [Entitlement]
        /// Mail sent or queued to the account's addresses (no bodies, addresses masked).
        public let mail: [OutboxEntry]
        public let exportedAt: Date
    }

    /// The export of the signed-in account (the app's bearer token or the web session).
    /// - Throws: `UseCaseError.unauthorized` without a valid credential.
    public func signedIn(_ credential: Credential, now: Date) async throws -> Document {
        let catalog = self.catalog
        return try await database.read { connection in
            let accountID = try credential.requireAccount(on: connection, now: now)
            guard let records = try AccountRecords.read(accountID: accountID, on: connection) else {
                throw UseCaseError.unauthorized("The access token is not valid (expired or signed out): sign in again.")
            }
            return Document(
                records: records,
                entitlements: catalog.entitlements(
                    for: records.purchases, manual: try ManualEntitlementRepository.active(accountID: accountID, on: connection, now: now), at: now),
                mail: try Outbox.entries(to: records.emails, on: connection), exportedAt: now)
        }
    }
}

extension ExportAccount {
    /// An operator's export of `accountID` (the console's `/console/accounts/{id}/export`), audited;
    /// `actor`'s role must allow it (`UseCaseError.forbidden`, nothing read).
    /// - Throws: `UseCaseError.forbidden`, `.notFound`, `StorageError`.
    public func byOperator(accountID: String, by actor: AuditActor, now: Date) async throws -> Document {
        try OperatorActions.require(.exportAccount, actor)
        let catalog = self.catalog
        return try await database.write { connection in
            guard try !AccountErasure.isDeleted(accountID: accountID, on: connection),
                let records = try AccountRecords.read(accountID: accountID, on: connection)
            else { throw UseCaseError.notFound("No account \(accountID).") }
            try AuditLog.record(actor, action: "account.export", target: accountID, details: "data export downloaded", on: connection, now: now)
            return Document(
                records: records,
                entitlements: catalog.entitlements(
                    for: records.purchases, manual: try ManualEntitlementRepository.active(accountID: accountID, on: connection, now: now), at: now),
                mail: try Outbox.entries(to: records.emails, on: connection), exportedAt: now)
        }
    }
}
