import Domain
import Foundation
import Mail
import Storage

/// What the console's pages read (every role may): what needs attention, a search for a buyer,
/// one buyer's records, the audit log. Each list is newest first and capped; the queries use
/// indexes only (docs/BENCHMARKS.md).
public struct ConsoleQueries: Sendable {
    let database: Database
    let vault: CodeVault

    /// Rows per list on a page.
    public static let pageSize = 50

    public init(database: Database, secrets: DomainSecrets) throws {
        self.database = database
        vault = try CodeVault(secrets: secrets)
    }

    /// The attention page's lists.
    public struct Attention: Sendable {
        public let unredeemed: [Purchase]
        public let failedMail: [ViewOutbox.Message]
        public let failedDeliveries: [AttentionRecords.FailedDelivery]
        public let stuckReports: [BuyerRecords.Report]
    }

    /// What needs attention now.
    /// - Throws: `UseCaseError.forbidden`, `StorageError`.
    public func attention(by actor: AuditActor, now: Date) async throws -> Attention {
        try OperatorActions.require(.read, actor)
        return try await database.read { connection in
            Attention(
                unredeemed: try AttentionRecords.unredeemed(now: now, limit: Self.pageSize, on: connection),
                failedMail: try OutboxStore.failed(limit: Self.pageSize, on: connection).map(ViewOutbox.message),
                failedDeliveries: try AttentionRecords.failedDeliveries(limit: Self.pageSize, on: connection),
                stuckReports: try AttentionRecords.stuckReports(now: now, limit: Self.pageSize, on: connection))
        }
    }

    /// The buyers `query` finds (an email, a code, an id of ours, Stripe's, Apple's or Google's).
    /// - Throws: `UseCaseError.forbidden`, `StorageError`.
    public func search(_ query: String, by actor: AuditActor) async throws -> [ConsoleSearch.Hit] {
        try OperatorActions.require(.read, actor)
        let codeKey = try CodeKey(normalizing: query.trimmingCharacters(in: .whitespacesAndNewlines), vault: vault)
        return try await database.read { try ConsoleSearch.find(query, codeKey: codeKey, limit: Self.pageSize, on: $0) }
    }

    /// One buyer's page.
    public struct Buyer: Sendable {
        public let records: BuyerRecords
        public let mail: [ViewOutbox.Message]
        public let audit: [AuditLog.Entry]
        /// The account's manual entitlements, newest first, live and ended.
        public let manualEntitlements: [ManualEntitlement]
    }

    /// The buyer `buyerID` names (an account id, or a purchase no account holds).
    /// - Throws: `UseCaseError.forbidden`, `.notFound`, `StorageError`.
    public func buyer(_ buyerID: String, by actor: AuditActor) async throws -> Buyer {
        try OperatorActions.require(.read, actor)
        return try await database.read { connection in
            guard let records = try BuyerRecords.load(buyerID: buyerID, limit: Self.pageSize, on: connection) else {
                throw UseCaseError.notFound("No buyer \(buyerID).")
            }
            let mail = try records.email.map { try OutboxStore.messages(to: $0, limit: Self.pageSize, on: connection).map(ViewOutbox.message) } ?? []
            let targets = [buyerID] + [records.account?.id].compactMap { $0 } + records.purchases.map(\.id) + records.codes.map(\.id)
            let audit = try AuditLog.about(Array(Set(targets)).sorted(), limit: Self.pageSize, on: connection)
            let manual = try records.account.map { try ManualEntitlementRepository.all(accountID: $0.id, limit: Self.pageSize, on: connection) } ?? []
            return Buyer(records: records, mail: mail, audit: audit, manualEntitlements: manual)
        }
    }

    /// A page of the audit log, newest first, optionally of one actor or action, before a cursor.
    /// - Throws: `UseCaseError.forbidden`, `StorageError`.
    public func audit(actor filterActor: String?, action: String?, before: Int64?, by actor: AuditActor) async throws -> [AuditLog.Entry] {
        try OperatorActions.require(.read, actor)
        return try await database.read {
            try AuditLog.page(actor: filterActor, action: action, before: before, limit: Self.pageSize, on: $0)
        }
    }
}
