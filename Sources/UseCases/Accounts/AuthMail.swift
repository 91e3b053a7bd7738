import Mail
import Domain
import Foundation
import Storage

/// Queues the account emails (confirmation, set-password) with fresh one-time links, in the
/// caller's transaction.
public struct AuthMail: Sendable {
    let mail: MailQueue
    let links: Links
    let now: @Sendable () -> Date

    public init(mail: MailQueue, links: Links, now: @escaping @Sendable () -> Date) {
        self.mail = mail
        self.links = links
        self.now = now
    }

    /// A link that confirms `email` for the account. The address it is sent to is shown in
    /// full: the recipient knows it, and a masked copy only confuses.
    func queueConfirmation(accountID: String, email: String, on connection: Connection) throws {
        let token = try AuthTokenRepository.issue(.emailConfirmation, accountID: accountID, email: email, on: connection, now: now())
        let locale = try PurchaseLocale.latest(accountID: accountID, email: email, on: connection)
        try mail.enqueue(
            key: "email-confirmation:\(try EntityID.make("m"))", template: "email_confirmation", to: email,
            parameters: Self.localized([
                "confirm_url": links.url("/email/confirm?token=" + token, locale: locale),
                "expiry_days": "3", "email": email,
            ], locale),
            on: connection)
    }

    /// A link that sets the account's password.
    func queueSetPassword(accountID: String, email: String, on connection: Connection) throws {
        let token = try AuthTokenRepository.issue(.passwordReset, accountID: accountID, email: email, on: connection, now: now())
        let locale = try PurchaseLocale.latest(accountID: accountID, email: email, on: connection)
        try mail.enqueue(
            key: "set-password:\(try EntityID.make("m"))", template: "set_password", to: email,
            parameters: Self.localized(
                ["set_password_url": links.url("/auth/password/reset?token=" + token, locale: locale), "expiry_hours": "1"],
                locale),
            on: connection)
    }

    /// `parameters` with the mail's language (`MailComposer.localeParameter`) when one is known.
    static func localized(_ parameters: [String: String], _ locale: String?) -> [String: String] {
        var parameters = parameters
        if let locale { parameters[MailComposer.localeParameter] = locale }
        return parameters
    }


    /// Sets `email` unconfirmed on the account and mails a confirmation; false when the
    /// account already has it confirmed. The one place an address is claimed.
    func claim(_ email: String, accountID: String, on connection: Connection, now: Date) throws -> Bool {
        let account = try AccountRepository.require(id: accountID, on: connection)
        if account.email == email && account.emailVerified { return false }
        try AccountRepository.setEmail(email, accountID: accountID, on: connection, now: now)
        try queueConfirmation(accountID: accountID, email: email, on: connection)
        return true
    }
}
