import Domain
import Foundation
import Storage

/// `POST /api/v1/account/email`: the signed-in account takes an address, unconfirmed, and a
/// confirmation link is mailed (nothing changes when it already has that address confirmed).
public struct SetAccountEmail: Sendable {
    let database: Database
    let authMail: AuthMail
    let mail: MailQueue

    public init(database: Database, authMail: AuthMail, mail: MailQueue) {
        self.database = database
        self.authMail = authMail
        self.mail = mail
    }

    /// The account after the change.
    /// - Throws: `UseCaseError.unauthorized`, `StorageError`.
    public func set(_ email: String, bearer: String?, now: Date) async throws -> Account {
        let authMail = self.authMail
        let (account, mailed) = try await database.write { connection -> (Account, Bool) in
            let accountID = try BearerSession.require(bearer, on: connection, now: now)
            let mailed = try authMail.claim(email, accountID: accountID, on: connection, now: now)
            return (try AccountRepository.require(id: accountID, on: connection), mailed)
        }
        if mailed { mail.queued() }
        return account
    }
}
