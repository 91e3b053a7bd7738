import Domain
import Foundation
import Storage

/// `POST /api/v1/account/email`: the signed-in account records an address request and a
/// confirmation link is mailed (at most one per address per resend interval; the route limits
/// each client too). The account keeps its confirmed address until the requested one is
/// confirmed; nothing changes when it has that address confirmed already.
public struct SetAccountEmail: Sendable {
    let database: Database
    let authMail: AuthMail
    let mail: MailQueue

    public init(database: Database, authMail: AuthMail, mail: MailQueue) {
        self.database = database
        self.authMail = authMail
        self.mail = mail
    }

    /// What a request left.
    public struct Requested: Sendable {
        /// The account after the request (`email`: its confirmed address, else the requested one).
        public let account: Account
        /// The address awaits confirmation by its mailed link (false: confirmed already).
        public let confirmationRequired: Bool
    }

    /// Records the request.
    /// - Throws: `UseCaseError.unauthorized`, `StorageError`.
    public func set(_ email: String, bearer: String?, now: Date) async throws -> Requested {
        let authMail = self.authMail
        let (result, mailed) = try await database.write { connection -> (Requested, Bool) in
            let accountID = try BearerSession.require(bearer, on: connection, now: now)
            let requested = try authMail.request(email, accountID: accountID, on: connection, now: now)
            let account = try AccountRepository.require(id: accountID, on: connection)
            return (Requested(account: account, confirmationRequired: requested.confirmationRequired), requested.mailed)
        }
        if mailed { mail.queued() }
        return result
    }
}
