import Domain
import Foundation
import Storage

/// Who holds a store purchase once a caller (a partner backend, a signed-in app) says it is
/// theirs, following `redemption.on_other_user` when another account already holds it.
enum PurchaseClaim {
    /// What happened to the claim.
    enum Outcome: Equatable {
        /// The purchase is held by `accountID`; `switched` when the app user moved to the
        /// account that already held it.
        case held(accountID: String, switched: Bool)
        /// Another account holds it and the policy (or the caller) does not allow a move.
        case belongsToOtherAccount
    }

    /// Links `purchase` to `accountID` when it is unlinked or already theirs. Held by another
    /// account: `transfer` moves it; `switch` points `appUserID` at the holding account (only
    /// when an app user is named, a bearer cannot switch); `reject` refuses.
    /// - Throws: `StorageError`.
    static func claim(
        _ purchase: Purchase, for accountID: String, appUserID: String?, policy: OtherUserPolicy, on connection: Connection, now: Date
    ) throws -> Outcome {
        guard let owner = purchase.accountID, owner != accountID else {
            if purchase.accountID == nil { try PurchaseRepository.link(purchaseID: purchase.id, to: accountID, on: connection, now: now) }
            return .held(accountID: accountID, switched: false)
        }
        switch policy {
        case .transfer:
            try PurchaseRepository.link(purchaseID: purchase.id, to: accountID, on: connection, now: now)
            return .held(accountID: accountID, switched: false)
        case .switch:
            guard let appUserID else { return .belongsToOtherAccount }
            try AccountRepository.link(appUserID: appUserID, to: owner, on: connection, now: now)
            return .held(accountID: owner, switched: true)
        case .reject:
            return .belongsToOtherAccount
        }
    }

    /// Links an unlinked purchase to the account whose obfuscated id the store reports as the
    /// purchaser (Apple `appAccountToken`, Play `obfuscatedExternalAccountId`): the app set it
    /// from this service's account, so the purchase is that account's.
    /// - Throws: `StorageError`.
    static func linkByOwnerHint(_ purchase: Purchase, on connection: Connection, now: Date) throws {
        guard purchase.accountID == nil, let hint = purchase.ownerHint,
            let account = try AccountRepository.find(obfuscatedID: hint, on: connection)
        else { return }
        try PurchaseRepository.link(purchaseID: purchase.id, to: account.id, on: connection, now: now)
    }

    /// The redemption policy as configured.
    static func policy(_ services: AppServices) -> OtherUserPolicy {
        OtherUserPolicy(rawValue: services.config.redemption.onOtherUser.rawValue) ?? .switch
    }
}
