import Domain
import Foundation
import Storage

/// What a mailed link or code proves (API.md "Who may act for an account", Addresses): the
/// address it was sent to, for the account it opens, which confirms it there. The one place a
/// sign-in by mail confirms an address (web link, web code, app link, app code).
enum AddressProof {
    /// Confirms `email` on `accountID` after a mailed link or code was used; false when the
    /// account is gone (deleted), so nothing may sign into it. Another account that keeps the
    /// address (`AccountRepository.confirmEmail`) keeps it: this one opens without it.
    /// - Throws: `StorageError`.
    static func proved(_ email: String, accountID: String, on connection: Connection, now: Date) throws -> Bool {
        guard let account = try AccountRepository.find(id: accountID, on: connection),
            !(try AccountErasure.isDeleted(accountID: account.id, on: connection))
        else { return false }
        guard account.confirmedEmail != email.lowercased() else { return true }
        do {
            try AccountRepository.confirmEmail(email, accountID: account.id, on: connection, now: now)
        } catch let error as DomainError where error.reason == .emailConfirmedElsewhere {
            // Another account confirmed the address first and holds more than it: it keeps it.
        }
        return true
    }
}
