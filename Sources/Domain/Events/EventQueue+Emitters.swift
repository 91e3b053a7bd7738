import Foundation
import JSON
import Storage

/// One function per kind of change, called by the domain functions and use cases that make the
/// change, inside their transaction. Each reads what it reports from the rows as they are now.
extension EventQueue {
    /// After `PurchaseRepository.apply`: `purchase.created` for a new purchase, `purchase.updated`
    /// when its status, expiry or product changed, and `entitlements.changed` for its account when
    /// what the purchase grants changed.
    /// - Throws: `StorageError`, `CryptoError`.
    public func purchaseApplied(_ applied: PurchaseRepository.Applied, on connection: Connection, now: Date) throws {
        // Paid twice: looked for only when the purchase has just become an active auto-renewing
        // subscription of an account (a renewal of one that already was costs nothing here).
        if applied.purchase.accountID != nil, applied.previous.map({ !DuplicateSubscriptions.isActiveAutoRenewing($0, at: now) }) ?? true {
            try duplicatesFound(
                DuplicateSubscriptions.recordPairs(with: applied.purchase, catalog: catalog, on: connection, now: now), on: connection, now: now)
        }
        guard !subscriptions.isEmpty, applied.created || applied.stateChanged else { return }
        let purchase = try PurchaseRepository.require(id: applied.purchase.id, on: connection)
        try record(
            applied.created ? .purchaseCreated : .purchaseUpdated, accountID: purchase.accountID, scope: "purchase:" + purchase.id,
            data: try EventData.account(purchase.accountID, on: connection).merging(EventData.purchase(purchase)) { $1 },
            on: connection, now: now)
        let before = applied.previous.map { catalog.entitlements(for: [$0], at: now) } ?? []
        if let accountID = purchase.accountID, before != catalog.entitlements(for: [purchase], at: now) {
            try entitlementsChanged(accountID: accountID, cause: purchase, on: connection, now: now)
        }
    }

    /// After `PurchaseRepository.link`: `purchase.transferred` when it moved from another
    /// account, and `entitlements.changed` for each account whose purchases changed.
    /// - Parameter before: the purchase as it was before the link.
    /// - Throws: `StorageError`, `CryptoError`.
    public func purchaseLinked(_ before: Purchase, to accountID: String, on connection: Connection, now: Date) throws {
        if before.accountID != accountID, let linked = try PurchaseRepository.find(id: before.id, on: connection) {
            try duplicatesFound(
                DuplicateSubscriptions.recordPairs(with: linked, catalog: catalog, on: connection, now: now), on: connection, now: now)
        }
        guard !subscriptions.isEmpty, before.accountID != accountID else { return }
        let purchase = try PurchaseRepository.require(id: before.id, on: connection)
        if let from = before.accountID {
            var data = try EventData.account(accountID, on: connection).merging(EventData.purchase(purchase)) { $1 }
            data["from_account_id"] = .string(from)
            try record(.purchaseTransferred, accountID: accountID, scope: "purchase:" + purchase.id, data: data, on: connection, now: now)
            try entitlementsChanged(accountID: from, cause: purchase, on: connection, now: now)
        }
        try entitlementsChanged(accountID: accountID, cause: purchase, on: connection, now: now)
    }

    /// `purchase.duplicate` for each pair found now: the account, the entitlement both grant, and
    /// both purchases (`data.purchases`).
    /// - Throws: `StorageError`, `CryptoError`.
    func duplicatesFound(_ pairs: [DuplicateSubscriptions.Pair], on connection: Connection, now: Date) throws {
        guard wants(.purchaseDuplicate) else { return }
        for pair in pairs {
            var data = try EventData.account(pair.accountID, on: connection)
            data["entitlement"] = .string(pair.entitlement)
            data["purchases"] = .array([pair.first, pair.second].compactMap { EventData.purchase($0)["purchase"] })
            try record(
                .purchaseDuplicate, accountID: pair.accountID, scope: "duplicate:\(pair.first.id):\(pair.second.id)", data: data,
                on: connection, now: now)
        }
    }

    /// `entitlements.changed` with the account's full list (and the purchase that caused it).
    /// - Throws: `StorageError`, `CryptoError`.
    public func entitlementsChanged(accountID: String, cause: Purchase?, on connection: Connection, now: Date) throws {
        guard wants(.entitlementsChanged) else { return }
        var data = try EventData.account(accountID, on: connection)
        data["entitlements"] = try EventData.entitlements(accountID: accountID, catalog: catalog, on: connection, now: now)
        data["purchase_id"] = EventData.text(cause?.id)
        try record(.entitlementsChanged, accountID: accountID, scope: "account:" + accountID, data: data, on: connection, now: now)
    }

    /// `account.created`.
    /// - Throws: `StorageError`, `CryptoError`.
    public func accountCreated(_ accountID: String, on connection: Connection, now: Date) throws {
        guard wants(.accountCreated) else { return }
        try record(
            .accountCreated, accountID: accountID, scope: "account:" + accountID, data: try EventData.account(accountID, on: connection),
            on: connection, now: now)
    }

    /// `account.switched`: `app_user_id` now uses `accountID` (the holder of `purchase`), having
    /// used `fromAccountID`.
    /// - Throws: `StorageError`, `CryptoError`.
    public func accountSwitched(
        appUserID: String?, from fromAccountID: String?, to accountID: String, purchase: Purchase?, on connection: Connection, now: Date
    ) throws {
        guard wants(.accountSwitched), fromAccountID != accountID else { return }
        var data = try EventData.account(accountID, on: connection)
        data["app_user_id"] = EventData.text(appUserID)
        data["from_account_id"] = EventData.text(fromAccountID)
        if let purchase { data.merge(EventData.purchase(purchase)) { $1 } }
        try record(.accountSwitched, accountID: accountID, scope: "account:" + accountID, data: data, on: connection, now: now)
    }

    /// `account.email_confirmed` (the address itself is not sent).
    /// - Throws: `StorageError`, `CryptoError`.
    public func emailConfirmed(accountID: String, on connection: Connection, now: Date) throws {
        guard wants(.accountEmailConfirmed) else { return }
        try record(
            .accountEmailConfirmed, accountID: accountID, scope: "account:" + accountID,
            data: try EventData.account(accountID, on: connection), on: connection, now: now)
    }

    /// `account.deleted`: names the account and the app users it had (taken before the
    /// erasure), so the app's backend can erase its side too. Never an address.
    /// - Throws: `StorageError`, `CryptoError`.
    public func accountDeleted(_ erased: AccountErasure.Erased, on connection: Connection, now: Date) throws {
        guard wants(.accountDeleted) else { return }
        let data: [String: JSONValue] = [
            "account_id": .string(erased.accountID), "obfuscated_account_id": .string(erased.obfuscatedID),
            "app_user_ids": EventData.strings(erased.appUserIDs), "purchase_ids": EventData.strings(erased.purchaseIDs)
        ]
        try record(.accountDeleted, accountID: erased.accountID, scope: "account:" + erased.accountID, data: data, on: connection, now: now)
    }

    /// `code.issued`: the code's id and expiry, never the code (nor its last characters).
    /// - Throws: `StorageError`, `CryptoError`.
    public func codeIssued(_ code: RedemptionCodeRecord, purchase: Purchase, on connection: Connection, now: Date) throws {
        guard wants(.codeIssued) else { return }
        var data = try EventData.account(purchase.accountID, on: connection).merging(EventData.purchase(purchase)) { $1 }
        data["code_id"] = .string(code.id)
        data["code_expires_at"] = .string(Timestamp.rfc3339(code.expiresAt))
        try record(.codeIssued, accountID: purchase.accountID, scope: "purchase:" + purchase.id, data: data, on: connection, now: now)
    }

    /// `code.redeemed`: by `appUserID`, into `accountID`.
    /// - Throws: `StorageError`, `CryptoError`.
    public func codeRedeemed(codeID: String, purchaseID: String, accountID: String, appUserID: String, on connection: Connection, now: Date) throws {
        guard wants(.codeRedeemed) else { return }
        let purchase = try PurchaseRepository.require(id: purchaseID, on: connection)
        var data = try EventData.account(accountID, on: connection).merging(EventData.purchase(purchase)) { $1 }
        data["app_user_id"] = .string(appUserID)
        data["code_id"] = .string(codeID)
        try record(.codeRedeemed, accountID: accountID, scope: "account:" + accountID, data: data, on: connection, now: now)
    }
}
