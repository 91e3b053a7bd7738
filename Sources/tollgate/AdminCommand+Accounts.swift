import App
import Foundation
import UseCases

extension AdminCommand {
    /// `admin delete-account --email E`: deletes every account with the address (API.md
    /// "Account deletion and data export"), audited under `cli:<user>`; prints one line per account.
    static func deleteAccount(_ services: UseCaseFactory, options: [String: String]) async throws {
        guard let given = options["email"] else { throw UsageError(message: "admin delete-account needs --email") }
        let email = given.trimmingCharacters(in: .whitespaces).lowercased()
        guard email.contains("@") else { throw UsageError(message: "--email must be an email address") }
        let deletion = services.deleteAccount
        let outcomes = try await deletion.byOperator(email: email, actor: actor, now: Date())
        for outcome in outcomes {
            switch outcome {
            case .deleted(let id): print("\(id)\tdeleted")
            case .alreadyDeleted(let id): print("\(id)\talready deleted")
            }
        }
        print("\(outcomes.count) account(s) deleted")
    }

    /// `admin forget-secrets --account ID --reason R`: unbinds every install secret of the
    /// account's app users (support's "forget secrets"), audited under `cli:<user>`.
    static func forgetSecrets(_ services: UseCaseFactory, options: [String: String]) async throws {
        guard let accountID = options["account"], !accountID.isEmpty else { throw UsageError(message: "admin forget-secrets needs --account") }
        guard let reason = options["reason"] else { throw UsageError(message: "admin forget-secrets needs --reason") }
        let unbound = try await services.operatorActions.forgetSecrets(accountID: accountID, reason: reason, actor: actor, now: Date())
        print("\(accountID)\t\(unbound) install secret(s) unbound")
    }
}
