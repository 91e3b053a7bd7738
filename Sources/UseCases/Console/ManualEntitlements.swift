import Domain
import Foundation
import Storage

/// An admin grants an account an entitlement by hand, until a date, or ends such a grant early
/// (API.md "The operators' console", `/console/accounts/{id}/entitlements`). The grant is real:
/// the account and every app user on it hold the entitlement in the entitlement API, the account
/// page, the export, receipt answers, the already-entitled check and `entitlements.changed`
/// events, until the end of the `until` day in UTC (`ends_at` is 00:00:00 UTC of the next day),
/// or until ended. Each grant and end is audited (who, what, on what, reason, client address).
public struct ManualEntitlements: Sendable {
    let database: Database
    let catalog: EntitlementCatalog
    let events: EventQueue

    public init(database: Database, catalog: EntitlementCatalog, events: EventQueue) {
        self.database = database
        self.catalog = catalog
        self.events = events
    }

    /// Grants `entitlement` to `accountID` through the UTC day `until` (`YYYY-MM-DD`); a live
    /// grant of the same entitlement is ended and replaced.
    /// - Throws: `UseCaseError.forbidden` (not admin), `.badRequest` (unknown entitlement, a date
    ///   that does not parse or has passed, no reason), `.notFound` (no such account).
    public func grant(accountID: String, entitlement: String, until: String, by actor: AuditActor, now: Date) async throws -> ManualEntitlement {
        try OperatorActions.require(.entitlements, actor)
        let entitlement = try known(entitlement)
        let endsAt = try Self.end(of: until, now: now)
        let reason = try Self.reason(actor)
        let events = self.events
        let granted = try await database.write { connection -> ManualEntitlement in
            try ConsoleActions.requireAccount(accountID, on: connection)
            let (granted, replaced) = try ManualEntitlementRepository.grant(
                accountID: accountID, entitlement: entitlement, endsAt: endsAt, by: actor.name, reason: reason, on: connection, now: now)
            var details = "\(entitlement) until \(Self.day(endsAt)) (ends \(Timestamp.rfc3339(endsAt)))"
            if let replaced { details += ", replacing the grant until \(Self.day(replaced.endsAt))" }
            try AuditLog.record(actor, action: "entitlement.grant", target: accountID, details: details, on: connection, now: now)
            try events.entitlementsChanged(accountID: accountID, cause: nil, on: connection, now: now)
            return granted
        }
        events.queued()
        return granted
    }

    /// Ends the live manual grant of `entitlement` on `accountID` now.
    /// - Throws: `UseCaseError.forbidden` (not admin), `.badRequest` (no reason), `.notFound` (no
    ///   such account, or no live manual grant of it).
    public func end(accountID: String, entitlement: String, by actor: AuditActor, now: Date) async throws {
        try OperatorActions.require(.entitlements, actor)
        let entitlement = entitlement.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try Self.reason(actor)
        let events = self.events
        try await database.write { connection in
            try ConsoleActions.requireAccount(accountID, on: connection)
            guard let live = try ManualEntitlementRepository.live(accountID: accountID, entitlement: entitlement, on: connection, now: now) else {
                throw UseCaseError.notFound("Account \(accountID) holds no manual grant of \(entitlement) now.")
            }
            try ManualEntitlementRepository.end(id: live.id, by: actor.name, on: connection, now: now)
            try AuditLog.record(
                actor, action: "entitlement.end", target: accountID, details: "\(entitlement) ended (was until \(Self.day(live.endsAt)))",
                on: connection, now: now)
            try events.entitlementsChanged(accountID: accountID, cause: nil, on: connection, now: now)
        }
        events.queued()
    }

    /// The account's grants, newest first, live and ended (the console's buyer page).
    /// - Throws: `UseCaseError.forbidden`, `StorageError`.
    public func list(accountID: String, by actor: AuditActor, limit: Int = ConsoleQueries.pageSize) async throws -> [ManualEntitlement] {
        try OperatorActions.require(.read, actor)
        return try await database.read { try ManualEntitlementRepository.all(accountID: accountID, limit: limit, on: $0) }
    }

    /// The entitlement ids config knows, sorted (the grant form's choices).
    public var known: [String] { catalog.ids }

    private func known(_ entitlement: String) throws -> String {
        let trimmed = entitlement.trimmingCharacters(in: .whitespacesAndNewlines)
        guard catalog.knows(trimmed) else {
            let names = catalog.ids.joined(separator: ", ")
            throw UseCaseError.badRequest(
                "No entitlement \"\(String(trimmed.prefix(64)))\" in config; grant one of: \(names.isEmpty ? "(none configured)" : names).")
        }
        return trimmed
    }

    /// The first instant after the UTC day `until` (`YYYY-MM-DD`), which must not have ended yet.
    static func end(of until: String, now: Date) throws -> Date {
        let text = until.trimmingCharacters(in: .whitespaces)
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.utf8.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let year = Int(parts[0]), let month = Int(parts[1]), let dayOfMonth = Int(parts[2])
        else { throw UseCaseError.badRequest("Give the last day of the grant as YYYY-MM-DD (until), for example 2026-12-31.") }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: dayOfMonth)
        guard components.isValidDate(in: calendar), let start = calendar.date(from: components),
            let next = calendar.date(byAdding: .day, value: 1, to: start)
        else { throw UseCaseError.badRequest("\(text) is not a day of the calendar: give the last day of the grant as YYYY-MM-DD (until).") }
        guard next > now else {
            throw UseCaseError.badRequest(
                "\(text) has passed (days are in UTC; today is \(String(Timestamp.rfc3339(now).prefix(10)))): give today or a later day (until).")
        }
        return next
    }

    /// The UTC day `endsAt` closes (the `until` given).
    public static func day(_ endsAt: Date) -> String { String(Timestamp.rfc3339(endsAt.addingTimeInterval(-1)).prefix(10)) }

    private static func reason(_ actor: AuditActor) throws -> String {
        let reason = (actor.reason ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !reason.isEmpty else { throw UseCaseError.badRequest("Say why (the reason field): it goes to the audit log.") }
        return reason
    }
}
