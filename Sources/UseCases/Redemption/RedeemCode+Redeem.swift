import Crypto
import Domain
import Foundation
import Storage

/// The full redemption (API.md "Redemption"), in the writer's transaction: links the purchase to
/// the redeeming account, applies the other-user policy, keeps devices within the limit,
/// re-issues expired codes, and answers the same way to a retry.
extension RedeemCode {
    /// Redeems the code of `key` (normalized and hashed by the caller, once) in the caller's write
    /// transaction, so a crash leaves either all of it or none; it orders itself with row and key
    /// locks, so that transaction may be READ COMMITTED. Who gets a session is
    /// API.md's "Who may act for an account": a caller that proved the redeeming app user (a bound
    /// secret, a new app user binding its secret, a bearer), or the code itself for the account its
    /// purchase formed (`AccountFormation`). A secret that does not match links nothing.
    /// - Parameter session: credentials drafted before the transaction (see `SessionRepository.draft`).
    /// - Throws: `StorageError`, `DomainError` (broken data), `CryptoError` (random source).
    func redemption(
        of key: CodeKey, appUserID: String, secret: InstallSecret? = nil, deviceID: String?, bearerAccountID: String?,
        session: SessionRepository.Draft, on connection: Connection, now: Date
    ) throws -> RedeemOutcome {
        // On PostgreSQL this runs at READ COMMITTED (docs/POSTGRES-CONCURRENCY.md): one app user's
        // redemptions take turns (its account, a switch), then one code's (its row), then, in
        // `DeviceRepository.touch`, one account's new devices. Always in that order.
        try AccountRepository.lock(appUserID: appUserID, on: connection)
        guard let record = try CodeRepository.findLocking(key: key, on: connection), record.status != .revoked else {
            return .invalidCode
        }
        let purchase = try PurchaseRepository.require(id: record.purchaseID, on: connection)

        if record.status == .replaced || (record.status == .live && record.isExpired(at: now)) {
            return .expiredCode(try expired(purchase: purchase, on: connection, now: now))
        }
        let proof: AppUserProof =
            bearerAccountID != nil
            ? .proven : try AppUserSecretRepository.proof(appUserID: appUserID, presented: secret, bearerAccountID: nil, on: connection)
        // A wrong or missing secret where one is bound proves nothing and links nothing.
        if proof == .mismatch { return .secretMismatch(purchase) }
        // A refusal (`reject`) creates and binds nothing: decided before any app user is made.
        if policy.onOtherUser == .reject, let holder = purchase.accountID,
            try (bearerAccountID ?? AccountRepository.find(appUserID: appUserID, on: connection)?.id) != holder
        {
            return .belongsToOtherUser
        }

        let redeemer = try redeemingAccount(
            appUserID: appUserID, secret: secret, deviceID: deviceID, through: purchase.id, bearerAccountID: bearerAccountID,
            on: connection, now: now)
        let home = try bearerAccountID == nil ? AccountRepository.homeAccountID(appUserID: appUserID, on: connection) : nil
        let ownAccountID = Self.ownAccountID(bearer: bearerAccountID, home: home, redeemer: redeemer.id)
        var holderID = purchase.accountID
        var purchaseChanged = false
        var guest = false
        switch policy.onOtherUser.decide(holder: purchase.accountID, claimant: redeemer.id, canSwitch: true) {
        case .keep:
            break  // Already linked to this account: a repeat redemption writes nothing here.
        case .link:
            try PurchaseRepository.link(purchaseID: purchase.id, to: redeemer.id, proved: proof.provesOnWrite, on: connection, now: now)
            try events.purchaseLinked(purchase, to: redeemer.id, on: connection, now: now)
            holderID = redeemer.id
            purchaseChanged = true
        case .reject:
            return .belongsToOtherUser
        case .switchToHolder(let holder):
            if try AccountFormation.isFormed(accountID: holder, by: purchase, on: connection) {
                // This app user joins the account its purchase formed: the code proves that one.
                try AccountRepository.link(appUserID: appUserID, to: holder, joinedThrough: purchase.id, on: connection, now: now)
                try events.accountSwitched(appUserID: appUserID, from: redeemer.id, to: holder, purchase: purchase, on: connection, now: now)
            } else {
                guest = true
            }
        case .transfer:
            // Only while the old account was formed by this purchase; else as `switch`.
            if let old = purchase.accountID, try !AccountFormation.isFormed(accountID: old, by: purchase, on: connection) {
                guest = true
                break
            }
            try PurchaseRepository.link(purchaseID: purchase.id, to: redeemer.id, proved: proof.provesOnWrite, on: connection, now: now)
            try CodeRepository.reassign(id: record.id, accountID: redeemer.id, on: connection, now: now)
            try events.purchaseLinked(purchase, to: redeemer.id, on: connection, now: now)
            holderID = redeemer.id
            purchaseChanged = true
        }
        guard let holderID else { throw DomainError(.corrupt, "purchase \(purchase.id) has no holder after redemption") }
        if record.status == .live {
            try CodeRepository.markRedeemed(id: record.id, accountID: holderID, appUserID: appUserID, on: connection, now: now)
            try events.codeRedeemed(codeID: record.id, purchaseID: purchase.id, accountID: holderID, appUserID: appUserID, on: connection, now: now)
        }
        let account = holderID == redeemer.id ? redeemer : try AccountRepository.require(id: holderID, on: connection)
        let linked = purchaseChanged ? try PurchaseRepository.require(id: purchase.id, on: connection) : purchase
        if guest {
            return .redeemed(
                try guestRedeemed(
                    key.code, codeID: record.id, purchase: linked, holder: account, appUserID: appUserID, deviceID: deviceID, on: connection,
                    now: now))
        }
        // The caller proved the redeeming app user, or the code proves the account its purchase formed.
        let proves =
            try (holderID == redeemer.id && proof.provesOnWrite)
            || AccountFormation.isFormed(accountID: holderID, by: linked, on: connection)
        return .redeemed(
            try redeemed(
                key.code, purchase: linked, holder: account, ownAccountID: ownAccountID, appUserID: appUserID, deviceID: deviceID,
                session: proves ? session : nil, on: connection, now: now))
    }

    /// The end of every successful redemption, first or repeat: the device is touched (within
    /// `maxDevices`), the drafted session issued to the holder when the caller proved it, and the
    /// answer put together.
    /// - Parameters:
    ///   - generations: the holder's and the device's session generations, when the caller read
    ///     them with the state it decided on (a repeat); nil reads them at the insert.
    ///   - seenDevice: the device's row, when the caller read it with that state; nil reads it here.
    func redeemed(
        _ code: RedemptionCode, purchase: Purchase, holder: Account, ownAccountID: String, appUserID: String, deviceID: String?,
        session: SessionRepository.Draft?, generations: SessionRepository.Generations? = nil, seenDevice: DeviceRepository.Seen? = nil,
        on connection: Connection, now: Date
    ) throws -> RedeemOutcome.Redeemed {
        let device = Self.device(deviceID, appUserID: appUserID)
        let evicted = try DeviceRepository.touch(
            deviceID: device, appUserID: appUserID, accountID: holder.id, maxDevices: policy.maxDevices, seen: seenDevice, on: connection,
            now: now)
        let tokens = try session.map {
            try SessionRepository.issue($0, accountID: holder.id, deviceID: device, generations: generations, on: connection, now: now)
        }
        return RedeemOutcome.Redeemed(
            // Stable across retries: the app now uses another account than its own.
            code: code, purchase: purchase, account: holder, accountSwitched: holder.id != ownAccountID, tokens: tokens,
            evictedDevices: evicted, isEntitled: purchase.isEntitled(at: now))
    }

    /// A redeeming app user that does not join the purchase's account: it alone holds this
    /// purchase's entitlements, its device counted on the holder's account (which can sign it out).
    func guestRedeemed(
        _ code: RedemptionCode, codeID: String, purchase: Purchase, holder: Account, appUserID: String, deviceID: String?,
        on connection: Connection, now: Date
    ) throws -> RedeemOutcome.Redeemed {
        let device = Self.device(deviceID, appUserID: appUserID)
        let evicted = try DeviceRepository.touch(
            deviceID: device, appUserID: appUserID, accountID: holder.id, maxDevices: policy.maxDevices, on: connection, now: now)
        try PurchaseGuestRepository.add(
            purchaseID: purchase.id, appUserID: appUserID, holderAccountID: holder.id, deviceID: device, codeID: codeID, on: connection,
            now: now)
        return RedeemOutcome.Redeemed(
            code: code, purchase: purchase, account: holder, accountSwitched: false, tokens: nil, evictedDevices: evicted,
            isEntitled: purchase.isEntitled(at: now))
    }

    /// The device a redemption is kept for: a device the app did not name is the app user's own.
    static func device(_ deviceID: String?, appUserID: String) -> String {
        deviceID ?? "app_user:" + appUserID
    }

    /// The account this app would use on its own: the signed-in one, else the app user's home
    /// account, else the one redeeming now (a new app user).
    static func ownAccountID(bearer: String?, home: String?, redeemer: String) -> String {
        bearer ?? home ?? redeemer
    }

    /// Issues a fresh code for an expired one when the purchase has an email and the
    /// per-purchase and per-email throttles allow it.
    func expired(purchase: Purchase, on connection: Connection, now: Date) throws -> RedeemOutcome.ExpiredCode {
        guard let email = purchase.purchaserEmail else {
            return RedeemOutcome.ExpiredCode(email: nil, resent: nil, purchase: purchase)
        }
        let resend = CodeResend(policy: policy, vault: vault, events: events)
        let resent = try resend.resendIfAllowed(purchase: purchase, email: email, on: connection, now: now)
        return RedeemOutcome.ExpiredCode(email: email, resent: resent, purchase: purchase)
    }

    private func redeemingAccount(
        appUserID: String, secret: InstallSecret?, deviceID: String?, through purchaseID: String, bearerAccountID: String?,
        on connection: Connection, now: Date
    ) throws -> Account {
        if let bearerAccountID {
            let account = try AccountRepository.require(id: bearerAccountID, on: connection)
            let current = try AccountRepository.find(appUserID: appUserID, on: connection)
            if current == nil {
                try AccountRepository.link(appUserID: appUserID, to: account.id, on: connection, now: now)
            }
            // A bearer of the app user's account binds this install's secret too (one per install,
            // at most `max_devices`).
            if let secret, current == nil || current?.id == account.id {
                _ = try AppUserSecretRepository.bindWithBearer(
                    secret, appUserID: appUserID, deviceID: deviceID, maxDevices: policy.maxDevices, on: connection, now: now)
            }
            return account
        }
        let (account, created) = try AccountRepository.findOrCreate(
            appUserID: appUserID, joinedThrough: purchaseID, secrets: secrets, on: connection, now: now)
        if created {
            try events.accountCreated(account.id, on: connection, now: now)
            // The call that creates the app user binds its secret.
            if let secret { try AppUserSecretRepository.bind(secret, appUserID: appUserID, deviceID: deviceID, on: connection, now: now) }
        }
        return account
    }
}
