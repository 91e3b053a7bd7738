import Domain
import Foundation
import Integrations
import Logging
import Storage

/// The buyer's page (`/account`) and its actions, for a signed-in web session's account: what it
/// holds, fresh codes by email, and Stripe's customer portal.
///
/// The purchases shown are the account's own (web and stores) and, once its email is confirmed,
/// web purchases made with that email that no account holds yet (a buyer who paid on the web and
/// never opened the app). Showing them links nothing: the code still decides where they go.
public struct WebAccount: Sendable {
    /// What the page shows.
    public struct Overview: Sendable {
        public let account: Account
        public let purchases: [Purchase]
        public let entitlements: [Entitlement]
        /// Whether a web purchase has a Stripe customer ("manage billing").
        public let hasBilling: Bool
        /// Whether an active web purchase can get a fresh code by email.
        public let canResendCodes: Bool
    }

    let database: Database
    let catalog: EntitlementCatalog
    let resend: CodeResend
    let codeMail: CodeMail
    let stripe: StripeClient?
    let links: Links
    let logger: Logger

    public init(
        database: Database, catalog: EntitlementCatalog, resend: CodeResend, codeMail: CodeMail, stripe: StripeClient?,
        links: Links, logger: Logger
    ) {
        self.database = database
        self.catalog = catalog
        self.resend = resend
        self.codeMail = codeMail
        self.stripe = stripe
        self.links = links
        self.logger = logger
    }

    /// The page's content.
    /// - Throws: `UseCaseError.unauthorized` when the account is gone, `StorageError`.
    public func overview(accountID: String, now: Date) async throws -> Overview {
        let catalog = self.catalog
        return try await database.read { connection in
            guard let account = try AccountRepository.find(id: accountID, on: connection) else {
                throw UseCaseError.unauthorized("Sign in first: your session has ended.")
            }
            let purchases = try Self.purchases(of: account, on: connection)
            return Overview(
                account: account, purchases: purchases,
                entitlements: catalog.entitlements(
                    for: purchases, manual: try ManualEntitlementRepository.active(accountID: account.id, on: connection, now: now), at: now),
                hasBilling: purchases.contains { $0.platform == .stripe && $0.customerID != nil },
                canResendCodes: purchases.contains { $0.platform == .stripe && $0.isEntitled(at: now) })
        }
    }

    /// Queues a fresh code for each active web purchase the page shows, to the address that
    /// bought it (the account's email when none was recorded), throttled as every resend is.
    /// Returns how many were queued.
    /// - Throws: `StorageError`.
    @discardableResult
    public func resendCodes(accountID: String, now: Date) async throws -> Int {
        let (resend, codeMail) = (self.resend, self.codeMail)
        let sent = try await database.write { connection -> Int in
            guard let account = try AccountRepository.find(id: accountID, on: connection) else { return 0 }
            var sent = 0
            for purchase in try Self.purchases(of: account, on: connection) where purchase.platform == .stripe && purchase.isEntitled(at: now) {
                guard let email = purchase.purchaserEmail ?? account.email,
                    let issued = try resend.resendIfAllowed(purchase: purchase, email: email, on: connection, now: now)
                else { continue }
                try codeMail.queueResent(issued, purchase: purchase, to: email, on: connection)
                sent += 1
            }
            return sent
        }
        if sent > 0 { codeMail.queued() }
        return sent
    }

    /// A Stripe customer-portal session for the account's newest web purchase with a customer;
    /// returns the page to send the buyer to.
    /// - Throws: `UseCaseError` (`not_found` without a Stripe customer, `not_configured` without
    ///   Stripe, `upstream_unavailable` when Stripe refuses or cannot be reached), `StorageError`.
    public func billingPortal(accountID: String, now: Date) async throws -> String {
        let customer = try await database.read { connection -> String? in
            guard let account = try AccountRepository.find(id: accountID, on: connection) else { return nil }
            return try Self.purchases(of: account, on: connection)
                .filter { $0.platform == .stripe && $0.customerID != nil }
                .max { $0.updatedAt < $1.updatedAt }?.customerID
        }
        guard let customer else {
            throw UseCaseError.notFound(
                "There is no card payment to manage on this account: purchases made in the app are managed in the App Store or Google Play.")
        }
        guard let stripe else {
            logger.error("billing_portal_not_configured", [("missing", .string("stripe.secret_key"))])
            throw UseCaseError.notConfigured("Billing cannot be managed on this server yet.")
        }
        do {
            return try await stripe.createBillingPortalSession(customerID: customer, returnURL: links.url("/account")).url
        } catch StripeError.api(let error) {
            logger.error("stripe_billing_portal_failed", [("type", .string(error.type)), ("code", .string(error.code ?? ""))])
            throw UseCaseError.upstreamUnavailable("Stripe could not open the billing page. Please try again later.")
        } catch is UpstreamError {
            throw UseCaseError.upstreamUnavailable("Stripe cannot be reached right now. Please try again in a minute.")
        }
    }

    /// The account's purchases, then web purchases made with its confirmed email that no account
    /// holds or that an account the address cannot open holds (API.md "Who may act for an
    /// account": listed with "manage billing" and "email me the code"; the code proves the
    /// purchase), oldest first.
    static func purchases(of account: Account, on connection: Connection) throws -> [Purchase] {
        var purchases = try PurchaseRepository.forAccount(account.id, on: connection)
        if let email = account.email, account.emailVerified {
            let held = Set(purchases.map(\.id))
            purchases += try PurchaseRepository.forEmail(email, platform: .stripe, on: connection)
                .filter { !held.contains($0.id) }
        }
        return purchases.sorted { $0.createdAt < $1.createdAt }
    }
}
