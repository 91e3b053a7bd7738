import Domain
import Foundation
import Storage

extension OperatorActions {
    /// Support's "forget secrets" (API.md "Who may act for an account"): unbinds every install
    /// secret of the account's app users, so none proves anything until an install signs in again
    /// (a lost or sold phone). Audited with the reason; returns how many were unbound.
    /// - Throws: `UseCaseError` (`bad_request` for a reason outside 1–500 characters, `not_found`
    ///   for an unknown account), `StorageError`.
    public func forgetSecrets(accountID: String, reason: String, actor: String, now: Date) async throws -> Int {
        let reason = reason.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...500).contains(reason.count) else { throw UseCaseError.badRequest("reason must be 1 to 500 characters.") }
        return try await database.write { connection in
            guard try AccountRepository.find(id: accountID, on: connection) != nil else {
                throw UseCaseError.notFound("There is no account \(accountID).")
            }
            let unbound = try AppUserSecretRepository.unbindAll(accountID: accountID, on: connection)
            try AuditLog.record(
                actor: actor, action: "account.forget_secrets", target: accountID,
                details: "\(unbound) install secret(s) unbound; reason: \(reason)", on: connection, now: now)
            return unbound
        }
    }
}
