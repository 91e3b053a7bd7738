import Crypto
import Mail
import Domain
import Foundation
import Storage

/// Queues the account emails (sign-in, confirmation, set-password) with fresh one-time links, in
/// the caller's transaction, and keeps their limits (API.md "Who may act for an account",
/// Addresses): at most one mail of each kind per address per `redemption.resend_interval_seconds`.
public struct AuthMail: Sendable {
    /// The kinds of mail an address gets at most once per interval each.
    public enum Kind: String, Sendable {
        /// A sign-in link and code (web or app).
        case signIn = "sign-in"
        /// A confirmation link for an address request.
        case confirmation = "confirm"
        /// What a password sign-in mails (a set-password link, or a request's confirmation link).
        case password = "password"
    }

    /// Where a sign-in mail's link leads.
    public enum SignInLink: Sendable {
        /// The web account's sign-in page (`/account/sign-in/link`).
        case web
        /// The app's one-time `login_url` (`/auth/login`), bound to a PKCE challenge when one was sent.
        case app(codeChallenge: String?)
    }

    let mail: MailQueue
    let links: Links
    let now: @Sendable () -> Date
    let secrets: DomainSecrets
    let resendInterval: TimeInterval

    /// - Parameter resendInterval: `redemption.resend_interval_seconds`.
    public init(mail: MailQueue, links: Links, now: @escaping @Sendable () -> Date, secrets: DomainSecrets, resendInterval: TimeInterval = 600) {
        self.mail = mail
        self.links = links
        self.now = now
        self.secrets = secrets
        self.resendInterval = resendInterval
    }

    /// Claims the right to mail `kind` to `email` now (recorded when granted). The throttle's key
    /// is a keyed hash of the address: the table keeps no address.
    /// - Throws: `StorageError`, `CryptoError`.
    func mayMail(_ kind: Kind, to email: String, on connection: Connection) throws -> Bool {
        let digest = try HMACSHA256.authenticationCode(
            for: Array("address-throttle\n\(kind.rawValue)\n\(email.lowercased())".utf8), key: secrets.signInCodeKey)
        return try ResendThrottle.claim("mail-\(kind.rawValue):" + Hex.encode(digest), interval: resendInterval, on: connection, now: now())
    }

    /// A link that confirms `email` for the account, when `kind`'s limit allows; returns whether
    /// it was queued. The address it is sent to is shown in full: the recipient knows it.
    /// - Throws: `StorageError`, `CryptoError`, `MailError`.
    @discardableResult
    func queueConfirmation(accountID: String, email: String, as kind: Kind = .confirmation, on connection: Connection) throws -> Bool {
        guard try mayMail(kind, to: email, on: connection) else { return false }
        let token = try AuthTokenRepository.issue(.emailConfirmation, accountID: accountID, email: email, on: connection, now: now())
        let locale = try PurchaseLocale.latest(accountID: accountID, email: email, on: connection)
        try mail.enqueue(
            key: "email-confirmation:\(try EntityID.make("m"))", template: "email_confirmation", to: email,
            parameters: Self.localized(
                [
                    "confirm_url": links.url("/email/confirm?token=" + token, locale: locale),
                    "expiry_days": "3", "email": email
                ], locale),
            on: connection)
        return true
    }

    /// A link that sets the account's password, when the password mails' limit allows; returns
    /// whether it was queued.
    /// - Throws: `StorageError`, `CryptoError`, `MailError`.
    @discardableResult
    func queueSetPassword(accountID: String, email: String, on connection: Connection) throws -> Bool {
        guard try mayMail(.password, to: email, on: connection) else { return false }
        let token = try AuthTokenRepository.issue(.passwordReset, accountID: accountID, email: email, on: connection, now: now())
        let locale = try PurchaseLocale.latest(accountID: accountID, email: email, on: connection)
        try mail.enqueue(
            key: "set-password:\(try EntityID.make("m"))", template: "set_password", to: email,
            parameters: Self.localized(
                ["set_password_url": links.url("/auth/password/reset?token=" + token, locale: locale), "expiry_hours": "1"],
                locale),
            on: connection)
        return true
    }

    /// A sign-in mail for `accountID` to `email`: a one-time link and a 6-digit code (10 minutes;
    /// the code ends the address's older codes), when the sign-in mails' limit allows; returns
    /// whether it was queued.
    /// - Throws: `StorageError`, `CryptoError`, `MailError`.
    func queueSignIn(accountID: String, email: String, link: SignInLink, on connection: Connection) throws -> Bool {
        guard try mayMail(.signIn, to: email, on: connection) else { return false }
        let now = now()
        let url: String
        switch link {
        case .web:
            url =
                "/account/sign-in/link?token="
                + (try AuthTokenRepository.issue(.webSignIn, accountID: accountID, email: email, on: connection, now: now))
        case .app(let challenge):
            url =
                "/auth/login?token="
                + (try AuthTokenRepository.issue(
                    .login, accountID: accountID, email: email, codeChallenge: challenge, on: connection, now: now))
        }
        let code = try SignInCodeRepository.issue(accountID: accountID, email: email, secrets: secrets, on: connection, now: now)
        let locale = try PurchaseLocale.latest(accountID: accountID, email: email, on: connection)
        try mail.enqueue(
            key: "sign-in:\(try EntityID.make("m"))", template: "login_link", to: email,
            parameters: Self.localized(["login_url": links.url(url, locale: locale), "expiry_minutes": "10", "sign_in_code": code], locale),
            on: connection)
        return true
    }

    /// `parameters` with the mail's language (`MailComposer.localeParameter`) when one is known.
    static func localized(_ parameters: [String: String], _ locale: String?) -> [String: String] {
        var parameters = parameters
        if let locale { parameters[MailComposer.localeParameter] = locale }
        return parameters
    }

    /// What an address request did.
    struct Requested: Sendable {
        /// The address awaits confirmation (false: the account has it confirmed already).
        let confirmationRequired: Bool
        /// A confirmation mail was queued (false when the address's limit held it back).
        let mailed: Bool
    }

    /// Records `email` as the account's address request and mails its confirmation link (within
    /// the limit); nothing when the account has it confirmed already. The one place an address
    /// is asked for: the account keeps its confirmed address until this one is confirmed.
    /// - Throws: `StorageError`, `CryptoError`, `MailError`.
    func request(_ email: String, accountID: String, on connection: Connection, now: Date) throws -> Requested {
        let email = email.lowercased()
        let account = try AccountRepository.require(id: accountID, on: connection)
        if account.confirmedEmail == email {
            if account.requestedEmail != nil { try AccountRepository.requestEmail(email, accountID: accountID, on: connection, now: now) }
            return Requested(confirmationRequired: false, mailed: false)
        }
        try AccountRepository.requestEmail(email, accountID: accountID, on: connection, now: now)
        return Requested(confirmationRequired: true, mailed: try queueConfirmation(accountID: accountID, email: email, on: connection))
    }
}
