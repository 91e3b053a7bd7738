import Foundation
import Storage

/// Reads and writes purchases. Every write is idempotent on the natural key
/// `(platform, external_id)` and ordered by `observed_at`: a snapshot older than the stored
/// state, or one named by an alias the purchase no longer goes by (a replaced Play token),
/// changes nothing but may fill in facts that were missing (email, customer, owner).
public enum PurchaseRepository {
    /// The outcome of applying a snapshot.
    public struct Applied: Sendable {
        public let purchase: Purchase
        public let created: Bool
        /// Whether the state (status, expiry, product) changed.
        public let stateChanged: Bool
        /// The purchase before this snapshot (nil when created now), to tell what changed.
        public var previous: Purchase? = nil
    }

    /// Holds the purchase `externalID` of `platform` names (existing or not) until the
    /// transaction ends, so writers of one purchase take turns (docs/POSTGRES-CONCURRENCY.md).
    /// - Throws: `StorageError`.
    public static func lock(platform: Platform, externalID: String, on connection: Connection) throws {
        try connection.lockKey("purchase:\(platform.rawValue):\(externalID)")
    }

    /// Applies `snapshot` to its purchase, creating it when new. Call inside a write transaction.
    ///
    /// A purchase it changes is not read back: the row is read holding it (`findHolding`), so
    /// nothing but this transaction changes it until COMMIT, and what the UPDATEs leave in it is
    /// worked out here the way their SQL does. On PostgreSQL those UPDATEs then go out with the
    /// next statement or COMMIT, and a webhook holds the purchase's lock for two round trips, not
    /// three (docs/POSTGRES-CONCURRENCY.md).
    /// - Parameter admit: told, holding the purchase's lock and before anything is written, whether
    ///   the purchase is already stored; it throws to refuse the snapshot (a Stripe subscription
    ///   this deployment does not vouch for). Asking here, not before, saves the webhook a round trip.
    /// - Throws: `StorageError`, `DomainError(.corrupt)`, what `admit` throws.
    public static func apply(
        _ snapshot: PurchaseSnapshot, on connection: Connection, now: Date, admitting admit: (_ known: Bool) throws -> Void = { _ in }
    ) throws -> Applied {
        // Concurrent writers of one purchase (PostgreSQL, READ COMMITTED) take turns from here on.
        try lock(platform: snapshot.platform, externalID: snapshot.externalID, on: connection)
        var existing = try findHolding(platform: snapshot.platform, reference: snapshot.externalID, on: connection)
        if existing == nil, let old = snapshot.supersedesExternalID,
            let superseded = try findHolding(platform: snapshot.platform, reference: old, on: connection)?.purchase
        {
            // A new token for the same purchase (Play linkedPurchaseToken): re-key the one row.
            try connection.execute(
                "UPDATE purchases SET external_id = ?, updated_at = ? WHERE id = ?",
                [snapshot.externalID, Timestamp.milliseconds(now), superseded.id])
            try addAlias(platform: snapshot.platform, alias: superseded.externalID, purchaseID: superseded.id, on: connection)
            existing = try findHolding(id: superseded.id, on: connection)
        }
        try admit(existing != nil)
        let nowMS = Timestamp.milliseconds(now)
        guard let held = existing else {
            let id = try EntityID.make("pur")
            try connection.executeDeferred(
                """
                INSERT INTO purchases (id, platform, external_id, product_id, status, expires_at, environment, observed_at,
                    purchaser_email, customer_id, owner_hint, created_at, updated_at, will_renew, renews_to_product_id, offer_type)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    id, snapshot.platform.rawValue, snapshot.externalID, snapshot.productID, snapshot.status.rawValue,
                    snapshot.expiresAt.map(Timestamp.milliseconds), snapshot.environment, Timestamp.milliseconds(snapshot.observedAt),
                    snapshot.purchaserEmail?.lowercased(), snapshot.customerID, snapshot.ownerHint, nowMS, nowMS,
                    snapshot.willRenew.map { $0 ? 1 : 0 }, snapshot.willRenew == nil ? nil : snapshot.renewsToProductID, snapshot.offerType
                ])
            if let old = snapshot.supersedesExternalID {
                try addAlias(platform: snapshot.platform, alias: old, purchaseID: id, on: connection)
            }
            let created = try require(id: id, on: connection)
            try PurchaseHistory.record(created, source: snapshot.source ?? .default(for: snapshot.platform), on: connection, now: now)
            try keepOrderID(snapshot, purchaseID: id, on: connection)
            return Applied(purchase: created, created: true, stateChanged: true)
        }
        let current = held.purchase
        // What the UPDATEs below leave in the row, as their SQL does it.
        var updated = current
        // A snapshot named by a token a newer one replaced (Play `linkedPurchaseToken`) describes
        // the old order: Google expires it on an upgrade, while the purchase goes on under the new
        // token. Its state changes nothing; its gap facts still fill in.
        let namesReplacedToken = current.externalID != snapshot.externalID
        let isNewer = !namesReplacedToken && Timestamp.milliseconds(snapshot.observedAt) >= Timestamp.milliseconds(current.observedAt)
        if isNewer {
            // One statement for the state and, when the snapshot says them, the renewal plan (said as
            // a whole: the product it renews into goes with it) and the offer: a row version each
            // on PostgreSQL otherwise.
            var assignments = "product_id = ?, status = ?, expires_at = ?, environment = COALESCE(?, environment), observed_at = ?, updated_at = ?"
            var arguments: [any SQLBindable] = [
                snapshot.productID, snapshot.status.rawValue, snapshot.expiresAt.map(Timestamp.milliseconds), snapshot.environment,
                Timestamp.milliseconds(snapshot.observedAt), nowMS
            ]
            if let willRenew = snapshot.willRenew {
                assignments += ", will_renew = ?, renews_to_product_id = ?"
                arguments += [willRenew ? 1 : 0, snapshot.renewsToProductID]
                updated.willRenew = willRenew
                updated.renewsToProductID = snapshot.renewsToProductID
            }
            if let offerType = snapshot.offerType {
                assignments += ", offer_type = ?"
                arguments.append(offerType)
                updated.offerType = offerType
            }
            arguments.append(current.id)
            try connection.executeDeferred("UPDATE purchases SET " + assignments + " WHERE id = ?", arguments)
            updated.productID = snapshot.productID
            updated.status = snapshot.status
            updated.expiresAt = Timestamp.date(snapshot.expiresAt.map(Timestamp.milliseconds))
            updated.environment = snapshot.environment ?? current.environment
            updated.observedAt = Timestamp.date(Timestamp.milliseconds(snapshot.observedAt))
            updated.updatedAt = Timestamp.date(nowMS)
        }
        // Facts that do not go stale fill gaps whatever the snapshot's age; a purchase erased with
        // its account takes back no email and no owner. Only a gap this snapshot fills is written:
        // the row was read under its lock, and an UPDATE that sets indexed columns to the values
        // they hold still rewrites their index entries (SQLite) or a whole new row version with an
        // entry in every index (PostgreSQL).
        updated.purchaserEmail = current.purchaserEmail ?? (held.erased ? nil : snapshot.purchaserEmail?.lowercased())
        updated.customerID = current.customerID ?? snapshot.customerID
        updated.ownerHint = current.ownerHint ?? (held.erased ? nil : snapshot.ownerHint)
        if updated.purchaserEmail != current.purchaserEmail || updated.customerID != current.customerID || updated.ownerHint != current.ownerHint {
            try connection.executeDeferred(
                """
                UPDATE purchases SET purchaser_email = COALESCE(purchaser_email, CASE WHEN erased_at IS NULL THEN ? END),
                    customer_id = COALESCE(customer_id, ?), owner_hint = COALESCE(owner_hint, CASE WHEN erased_at IS NULL THEN ? END)
                WHERE id = ?
                """,
                [snapshot.purchaserEmail?.lowercased(), snapshot.customerID, snapshot.ownerHint, current.id])
        }
        let changed =
            isNewer
            && (updated.status != current.status || updated.expiresAt != current.expiresAt || updated.productID != current.productID
                || updated.willRenew != current.willRenew || updated.renewsToProductID != current.renewsToProductID)
        if changed { try PurchaseHistory.record(updated, source: snapshot.source ?? .default(for: snapshot.platform), on: connection, now: now) }
        try keepOrderID(snapshot, purchaseID: current.id, on: connection)
        return Applied(purchase: updated, created: false, stateChanged: changed, previous: current)
    }

    /// The purchase whose external id or alias (superseded token, checkout session, payment
    /// intent) is `reference`.
    public static func find(platform: Platform, reference: String, on connection: Connection) throws -> Purchase? {
        try row(platform: platform, reference: reference, columns: Purchase.columns, suffix: "", on: connection).map(Purchase.init(row:))
    }

    /// The row of the purchase `reference` names (as `find`), with `columns`, the query ending in `suffix`.
    private static func row(platform: Platform, reference: String, columns: String, suffix: String, on connection: Connection) throws -> Row? {
        if let row = try connection.queryOne(
            "SELECT \(columns) FROM purchases WHERE platform = ? AND external_id = ?" + suffix, [platform.rawValue, reference])
        {
            return row
        }
        guard
            let alias = try connection.queryOne(
                "SELECT purchase_id FROM purchase_aliases WHERE platform = ? AND alias = ?", [platform.rawValue, reference])
        else { return nil }
        return try connection.queryOne("SELECT \(columns) FROM purchases WHERE id = ?" + suffix, [try alias.string("purchase_id")])
    }

    /// A purchase as `apply` reads it: with whether its account's data was erased (`erased_at`).
    private struct Held {
        let purchase: Purchase
        let erased: Bool

        init(row: Row) throws {
            purchase = try Purchase(row: row)
            erased = try row.optionalInt64("erased_at") != nil
        }
    }

    /// `find`, holding the row until the transaction ends (PostgreSQL `FOR UPDATE`; SQLite's one
    /// writer holds everything): no other transaction changes it before this one commits.
    private static func findHolding(platform: Platform, reference: String, on connection: Connection) throws -> Held? {
        try row(
            platform: platform, reference: reference, columns: Purchase.columns + ", erased_at", suffix: connection.dialect.rowLockClause,
            on: connection
        ).map(Held.init(row:))
    }

    private static func findHolding(id: String, on connection: Connection) throws -> Held? {
        try connection.queryOne(
            "SELECT \(Purchase.columns), erased_at FROM purchases WHERE id = ?" + connection.dialect.rowLockClause, [id]
        ).map(Held.init(row:))
    }

    public static func find(id: String, on connection: Connection) throws -> Purchase? {
        try connection.queryOne("SELECT \(Purchase.columns) FROM purchases WHERE id = ?", [id]).map(Purchase.init(row:))
    }

    /// - Throws: `DomainError(.notFound)` when there is no such purchase.
    public static func require(id: String, on connection: Connection) throws -> Purchase {
        guard let purchase = try find(id: id, on: connection) else {
            throw DomainError(.notFound, "no purchase \(id)")
        }
        return purchase
    }

    /// A Play order id (`GPA.…`, the one a buyer's receipt shows) as an alias, so support finds the
    /// purchase by it (the console's search); the purchase token stays the external id.
    static func keepOrderID(_ snapshot: PurchaseSnapshot, purchaseID: String, on connection: Connection) throws {
        guard snapshot.platform == .playStore, let orderID = snapshot.transactionID, !orderID.isEmpty, orderID != snapshot.externalID else { return }
        try connection.executeDeferred(
            "INSERT INTO purchase_aliases (platform, alias, purchase_id) VALUES (?, ?, ?) ON CONFLICT (platform, alias) DO NOTHING",
            [snapshot.platform.rawValue, orderID, purchaseID])
    }

    /// Records another name for a purchase (idempotent).
    public static func addAlias(platform: Platform, alias: String, purchaseID: String, on connection: Connection) throws {
        try connection.execute(
            "INSERT INTO purchase_aliases (platform, alias, purchase_id) VALUES (?, ?, ?) ON CONFLICT (platform, alias) DO NOTHING",
            [platform.rawValue, alias, purchaseID])
    }

    /// Links the purchase to `accountID` (or unlinks with nil). A web purchase's first link is
    /// its first redemption in the funnel, and ends its reminders (`BuyerJourneyRepository`).
    public static func link(purchaseID: String, to accountID: String?, on connection: Connection, now: Date) throws {
        try connection.execute(
            "UPDATE purchases SET account_id = ?, linked_without_proof = NULL, updated_at = ? WHERE id = ?",
            [accountID, Timestamp.milliseconds(now), purchaseID])
        if accountID != nil { try BuyerJourneyRepository.markLinked(purchaseID: purchaseID, on: connection, now: now) }
    }

    /// Links the purchase to `accountID`, recording whether the caller proved that account ("Who
    /// may act for an account"): a purchase linked without proof never counts against "formed by"
    /// and never makes its account reachable through its address. Either way it is the purchase's
    /// first redemption in the funnel, and ends its reminders.
    public static func link(purchaseID: String, to accountID: String, proved: Bool, on connection: Connection, now: Date) throws {
        try connection.execute(
            "UPDATE purchases SET account_id = ?, linked_without_proof = ?, updated_at = ? WHERE id = ?",
            [accountID, proved ? 0 : 1, Timestamp.milliseconds(now), purchaseID])
        try BuyerJourneyRepository.markLinked(purchaseID: purchaseID, on: connection, now: now)
    }

    /// Stores the checkout context the purchase came from (first writer wins).
    public static func setOrigin(purchaseID: String, appUserID: String?, attribution: String?, email: String?, on connection: Connection) throws {
        try connection.execute(
            """
            UPDATE purchases SET app_user_id = COALESCE(app_user_id, ?), attribution = COALESCE(attribution, ?),
                purchaser_email = COALESCE(purchaser_email, ?) WHERE id = ? AND erased_at IS NULL
            """,
            [appUserID, attribution, email?.lowercased(), purchaseID])
    }

    public static func forAccount(_ accountID: String, on connection: Connection) throws -> [Purchase] {
        try connection.query(
            "SELECT \(Purchase.columns) FROM purchases WHERE account_id = ? ORDER BY created_at", [accountID]
        ).map(Purchase.init(row:))
    }

    public static func forEmail(_ email: String, platform: Platform? = nil, on connection: Connection) throws -> [Purchase] {
        if let platform {
            return try connection.query(
                "SELECT \(Purchase.columns) FROM purchases WHERE purchaser_email = ? AND platform = ? ORDER BY created_at",
                [email.lowercased(), platform.rawValue]
            ).map(Purchase.init(row:))
        }
        return try connection.query(
            "SELECT \(Purchase.columns) FROM purchases WHERE purchaser_email = ? ORDER BY created_at", [email.lowercased()]
        ).map(Purchase.init(row:))
    }
}
