import Domain
import Foundation
import Storage

/// Applies a claim on a purchase (a partner backend, a signed-in app says it is theirs)
/// following `OtherUserPolicy.decide`, and links purchases the store names an owner for.
enum PurchaseClaim {
    /// What happened to the claim.
    enum Outcome: Equatable {
        /// The purchase is held by `accountID`; `switched` when the app user moved to the
        /// account that already held it.
        case held(accountID: String, switched: Bool)
        /// Another account holds it and the policy (or the caller) does not allow a move.
        case belongsToOtherAccount
    }

    /// Claims `purchase` for `accountID`. Only a claim that names an app user can switch it
    /// to the holding account.
    /// - Throws: `StorageError`.
    static func claim(
        _ purchase: Purchase, for accountID: String, appUserID: String?, policy: OtherUserPolicy, events: EventQueue,
        on connection: Connection, now: Date
    ) throws -> Outcome {
        switch policy.decide(holder: purchase.accountID, claimant: accountID, canSwitch: appUserID != nil) {
        case .keep:
            return .held(accountID: accountID, switched: false)
        case .link, .transfer:
            try PurchaseRepository.link(purchaseID: purchase.id, to: accountID, on: connection, now: now)
            try events.purchaseLinked(purchase, to: accountID, on: connection, now: now)
            return .held(accountID: accountID, switched: false)
        case .switchToHolder(let holder):
            if let appUserID {
                try AccountRepository.link(appUserID: appUserID, to: holder, on: connection, now: now)
                try events.accountSwitched(appUserID: appUserID, from: accountID, to: holder, purchase: purchase, on: connection, now: now)
            }
            return .held(accountID: holder, switched: true)
        case .reject:
            return .belongsToOtherAccount
        }
    }

    /// Links an unlinked purchase to the account whose obfuscated id the store reports as the
    /// purchaser (Apple `appAccountToken`, Play `obfuscatedExternalAccountId`): the app set it
    /// from this service's account, so the purchase is that account's.
    /// - Throws: `StorageError`.
    static func linkByOwnerHint(_ purchase: Purchase, events: EventQueue, on connection: Connection, now: Date) throws {
        guard purchase.accountID == nil, let hint = purchase.ownerHint,
            let account = try AccountRepository.find(obfuscatedID: hint, on: connection)
        else { return }
        try PurchaseRepository.link(purchaseID: purchase.id, to: account.id, on: connection, now: now)
        try events.purchaseLinked(purchase, to: account.id, on: connection, now: now)
    }

    /// Links the other purchases a proof vouched for (an App Store receipt's, `alongside`) to
    /// `holder`, the account that now holds the claimed purchase: one receipt is one Apple
    /// account's purchases. Each follows `policy` as a claim that cannot switch: unheld ones are
    /// linked, held by `holder` kept, held by another account moved under `transfer` and left
    /// where they are otherwise. Returns those `holder` holds afterwards.
    /// - Throws: `StorageError`.
    static func claimAlongside(
        _ snapshots: [PurchaseSnapshot], for holder: String, policy: OtherUserPolicy, events: EventQueue, on connection: Connection, now: Date
    ) throws -> [Purchase] {
        var held: [Purchase] = []
        for snapshot in snapshots {
            guard let purchase = try PurchaseRepository.find(platform: snapshot.platform, reference: snapshot.externalID, on: connection) else {
                continue
            }
            switch policy.decide(holder: purchase.accountID, claimant: holder, canSwitch: false) {
            case .link, .transfer:
                try PurchaseRepository.link(purchaseID: purchase.id, to: holder, on: connection, now: now)
                try events.purchaseLinked(purchase, to: holder, on: connection, now: now)
                held.append(try PurchaseRepository.require(id: purchase.id, on: connection))
            case .keep:
                held.append(purchase)
            case .reject, .switchToHolder:
                continue
            }
        }
        return held
    }
}
