import Domain
import Foundation
import Storage
import Testing
import UseCases

/// Manual entitlements without HTTP: only an admin grants or ends one, the grant is held in every
/// answer that reports the account's entitlements until the end of its `until` day in UTC (or
/// until ended), and each grant and end is audited and announced to the app's backend.
@Suite("Manual entitlements")
struct ManualEntitlementsTests {
    static let admin = AuditActor(name: "ada@example.com", role: .admin, reason: "goodwill, ticket 7", clientAddress: "203.0.113.9")
    static let support = AuditActor(name: "sue@example.com", role: .support, reason: "goodwill", clientAddress: "203.0.113.7")
    static let viewer = AuditActor(name: "val@example.com", role: .viewer, reason: "goodwill", clientAddress: "203.0.113.8")
    static let catalog = EntitlementCatalog(["premium": ["price_monthly"], "pro": ["price_pro"]])

    let console = ConsoleBench()
    var bench: UseCaseBench { console.bench }
    var events: EventQueue { EventQueue(subscriptions: [EventSubscription(endpointID: "ep_1", types: ["*"])], catalog: Self.catalog) }
    var manual: ManualEntitlements { ManualEntitlements(database: bench.database, catalog: Self.catalog, events: events) }

    /// An account with two app users and no purchase.
    func account() throws -> String {
        let now = bench.now
        let secrets = bench.secrets
        return try bench.database.writeSync { connection in
            let (account, _) = try AccountRepository.findOrCreate(appUserID: "user-9", secrets: secrets, on: connection, now: now)
            try AccountRepository.link(appUserID: "user-9b", to: account.id, on: connection, now: now)
            return account.id
        }
    }

    /// `now` plus `days`, as the form's `YYYY-MM-DD` (UTC).
    func day(_ days: Int) -> String { String(Timestamp.rfc3339(bench.now.addingTimeInterval(Double(days) * 86_400)).prefix(10)) }

    /// The instant a grant `until` ends: 00:00:00 UTC of the following day.
    func end(of until: String) throws -> Date {
        try #require(ISO8601DateFormatter().date(from: until + "T00:00:00Z")).addingTimeInterval(86_400)
    }

    func listed(_ appUserID: String) async throws -> [Entitlement] {
        try await ListEntitlements(database: bench.database, catalog: Self.catalog).list(for: .appUser(appUserID, secret: nil), now: bench.now)
            .entitlements
    }

    func bodies(_ type: String) throws -> [String] {
        try bench.database.readSync {
            try $0.query("SELECT body FROM events WHERE type = ? ORDER BY created_at, sequence", [type]).map { try $0.string("body") }
        }
    }

    @Test("Support and viewers are refused with nothing stored; unknown entitlements and past or malformed days are refused")
    func refusals() async throws {
        let accountID = try account()
        for actor in [Self.support, Self.viewer] {
            let refused = await #expect(throws: UseCaseError.self) {
                _ = try await manual.grant(accountID: accountID, entitlement: "premium", until: day(10), by: actor, now: bench.now)
            }
            #expect(refused?.kind == .forbidden)
        }
        let unknown = await #expect(throws: UseCaseError.self) {
            _ = try await manual.grant(accountID: accountID, entitlement: "platinum", until: day(10), by: Self.admin, now: bench.now)
        }
        #expect(unknown?.kind == .badRequest && unknown?.message.contains("premium, pro") == true, "\(String(describing: unknown))")
        for until in [day(-1), "2026-02-30", "tomorrow", "2026-1-5", "", "２０２６-01-05"] {
            let bad = await #expect(throws: UseCaseError.self, "\(until)") {
                _ = try await manual.grant(accountID: accountID, entitlement: "premium", until: until, by: Self.admin, now: bench.now)
            }
            #expect(bad?.kind == .badRequest && bad?.message.contains("until") == true, "\(until): \(String(describing: bad))")
        }
        let noAccount = await #expect(throws: UseCaseError.self) {
            _ = try await manual.grant(accountID: "acc_missing", entitlement: "premium", until: day(10), by: Self.admin, now: bench.now)
        }
        #expect(noAccount?.kind == .notFound)
        #expect(try bench.dump("manual_entitlements").isEmpty && console.audit().isEmpty && bodies("entitlements.changed").isEmpty)
        #expect(try await listed("user-9").isEmpty)
    }

    @Test("A grant holds for every app user of the account through the end of its UTC day, is audited and announced; then it lapses")
    func grantHoldsUntilTheEndOfItsDay() async throws {
        let accountID = try account()
        let until = day(10)
        let endsAt = try end(of: until)
        let granted = try await manual.grant(accountID: accountID, entitlement: " premium ", until: until, by: Self.admin, now: bench.now)
        #expect(granted.endsAt == endsAt && granted.entitlement == "premium" && granted.grantedBy == "ada@example.com")

        for appUser in ["user-9", "user-9b"] {
            let held = try await listed(appUser)
            #expect(held.map(\.id) == ["premium"] && held.first?.active == true, "\(appUser): \(held)")
            #expect(held.first?.expiresAt == endsAt && held.first?.sourceName == "manual")
        }
        let check = AlreadyEntitledCheck(
            database: bench.database, catalog: EntitlementCatalog(["premium": ["price_monthly"]]), links: bench.links, androidPackage: nil)
        let refusal = try await check.holding(appUserID: "user-9b", accountID: nil, priceIDs: ["price_monthly"], now: bench.now)
        #expect(refusal?.entitlement == "premium" && refusal?.store == "manual" && refusal?.manageURL == "https://pay.example.test/account")

        let entry = try #require(try console.audit().first)
        #expect(entry.actor == "ada@example.com" && entry.action == "entitlement.grant" && entry.target == accountID)
        #expect(entry.reason == "goodwill, ticket 7" && entry.clientAddress == "203.0.113.9" && entry.details.contains("premium until \(until)"))
        let announced = try #require(try bodies("entitlements.changed").first)
        #expect(announced.contains("\"premium\"") && announced.contains(Timestamp.rfc3339(endsAt)), "\(announced)")

        let formed = try bench.database.readSync { try AccountFormation.Facts.read(accountID: accountID, on: $0) }
        #expect(formed.hasManualGrant, "an account an operator granted something is no longer formed by a purchase alone")

        // The last second of the day still holds; its end does not.
        bench.advance(endsAt.timeIntervalSince(bench.now) - 1)
        #expect(try await listed("user-9").first?.active == true)
        bench.advance(1)
        #expect(try await listed("user-9").isEmpty)
        #expect(try await check.holding(appUserID: "user-9", accountID: nil, priceIDs: ["price_monthly"], now: bench.now) == nil)
    }

    @Test("Ending a grant takes it away at once, audited and announced; a second end finds nothing; a new grant replaces the live one")
    func endAndReplace() async throws {
        let accountID = try account()
        _ = try await manual.grant(accountID: accountID, entitlement: "premium", until: day(3), by: Self.admin, now: bench.now)
        bench.advance(60)
        let later = day(30)
        _ = try await manual.grant(accountID: accountID, entitlement: "premium", until: later, by: Self.admin, now: bench.now)
        let laterEnd = try end(of: later)
        #expect(try await listed("user-9").first?.expiresAt == laterEnd, "the newer grant replaced the older")
        let grants = try bench.database.readSync { try ManualEntitlementRepository.all(accountID: accountID, limit: 10, on: $0) }
        #expect(grants.count == 2 && grants.filter { $0.endedAt == nil }.count == 1)

        await #expect(throws: UseCaseError.self) {
            try await manual.end(accountID: accountID, entitlement: "premium", by: Self.support, now: bench.now)
        }
        #expect(try await listed("user-9").first?.active == true, "a refused end changes nothing")
        bench.advance(60)
        try await manual.end(accountID: accountID, entitlement: "premium", by: Self.admin, now: bench.now)
        #expect(try await listed("user-9").isEmpty)
        let entry = try #require(try console.audit().first)
        #expect(entry.action == "entitlement.end" && entry.target == accountID && entry.reason == "goodwill, ticket 7")
        #expect(try bodies("entitlements.changed").count == 3)
        let gone = await #expect(throws: UseCaseError.self) {
            try await manual.end(accountID: accountID, entitlement: "premium", by: Self.admin, now: bench.now)
        }
        #expect(gone?.kind == .notFound)
    }

    @Test("A grant beside a purchase: the purchase's store is the source, and the later end of the two is the expiry")
    func besideAPurchase() async throws {
        let accountID = try bench.heldPurchase(appUserID: "user-9", platform: .appStore, externalID: "1000", productID: "price_monthly")
        let until = day(40)
        _ = try await manual.grant(accountID: accountID, entitlement: "premium", until: until, by: Self.admin, now: bench.now)
        let held = try #require(try await listed("user-9").first)
        let endsAt = try end(of: until)
        #expect(held.active && held.source == .appStore && held.expiresAt == endsAt, "\(held)")
    }
}
