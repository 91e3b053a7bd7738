import Domain
import Foundation
import Storage

/// Queues the account emails (confirmation, set-password) with fresh one-time links, in the
/// caller's transaction.
struct AuthMail {
    let services: AppServices

    func queueConfirmation(accountID: String, email: String, on connection: Connection) throws {
        let token = try AuthTokenRepository.issue(.emailConfirmation, accountID: accountID, email: email, on: connection, now: services.now())
        try services.enqueueMail(
            key: "email-confirmation:\(try EntityID.make("m"))", template: "email_confirmation", to: email,
            parameters: [
                "confirm_url": services.url("/email/confirm?token=" + token),
                "expiry_text": "in 3 days", "masked_email": EmailMask.mask(email),
            ],
            on: connection)
    }

    func queueSetPassword(accountID: String, email: String, on connection: Connection) throws {
        let token = try AuthTokenRepository.issue(.passwordReset, accountID: accountID, email: email, on: connection, now: services.now())
        try services.enqueueMail(
            key: "set-password:\(try EntityID.make("m"))", template: "set_password", to: email,
            parameters: ["set_password_url": services.url("/auth/password/reset?token=" + token), "expiry_text": "in 1 hour"],
            on: connection)
    }
}
