import Crypto
import Domain
import Foundation
import Storage

/// `POST /api/v1/iap/apple|google`: an account from an in-app purchase, by API.md's four-way
/// table (`StoreClaimPlan`). The purchase is verified with the store first; then, in one
/// transaction, it is stored and linked, an account is created or found, emails are queued,
/// and a one-time login link signs the app into the account that now holds the purchase. A
/// receipt's other purchases are stored and linked to that account in the same transaction.
public struct ClaimStorePurchase: Sendable {
    /// The store's proof of purchase.
    public enum Proof: Sendable {
        case appStoreSignedTransaction(String)
        case appStoreReceipt(String)
        case appStoreTransactionID(String)
        /// A StoreKit 1 receipt and the transaction to claim from it.
        case appStoreReceiptTransaction(receipt: String, transactionID: String)
        case play(purchaseToken: String, sku: String)

        /// Whether the proof is what only the buyer's device holds (a receipt, a signed
        /// transaction, a Play token), which proves the account holding the purchase; a bare
        /// transaction id (or a family-shared transaction) proves the purchase only.
        func provesHolder(_ verified: VerifiedStorePurchase) -> Bool {
            switch self {
            case .appStoreTransactionID: false
            case .appStoreSignedTransaction: !verified.isFamilyShared
            case .appStoreReceipt, .appStoreReceiptTransaction, .play: true
            }
        }
    }

    /// What the app sent besides the proof.
    public struct Claimant: Sendable {
        public let bearer: String?
        /// `customer_details.email`, normalized.
        public let email: String?
        /// `conversion_details` as JSON object text (the purchase's attribution, first one wins).
        public let conversionDetails: String?
        /// `app_user_id` and `app_user_secret`: a matching pair counts as signed in.
        public let appUserID: String?
        public let secret: InstallSecret?
        /// PKCE S256 challenge: `/auth/token` will require its verifier for the login link.
        public let codeChallenge: String?

        public init(
            bearer: String?, email: String?, conversionDetails: String?, appUserID: String? = nil, secret: InstallSecret? = nil,
            codeChallenge: String? = nil
        ) {
            self.bearer = bearer
            self.email = email
            self.conversionDetails = conversionDetails
            self.appUserID = appUserID
            self.secret = secret
            self.codeChallenge = codeChallenge
        }
    }

    /// What the transaction decided.
    public struct Claimed: Sendable {
        /// The account that holds the purchase; nil when nothing was linked (`secretMismatch`).
        public let account: Account?
        /// Signs the app into `account` (one use, 10 minutes); nil when the caller did not prove
        /// the account that holds the purchase (`session_required`).
        public let loginURL: String?
        /// The app user's bound secrets were not presented: nothing was linked to its account.
        public var secretMismatch = false
        public let accountSwitched: Bool
        public let emailConfirmationRequired: Bool
        public let autoAccountCreated: Bool
        /// Why customer details' address was not asked for on the account (`email_not_requested`),
        /// nil when it was or none was sent.
        public let emailNotRequested: EmailNotRequested?
        public let purchase: Purchase
    }

    /// Why a claim's customer email was left aside (API.md, issue 43 item 3).
    public enum EmailNotRequested: String, Sendable {
        /// Another account holds the purchase and this claim does not prove it (a bare
        /// transaction id): that account is not touched.
        case holderNotProved = "holder_not_proved"
    }

    let verifier: StorePurchaseVerifier
    let database: Database
    let policy: OtherUserPolicy
    let secrets: DomainSecrets
    let authMail: AuthMail
    let mail: MailQueue
    let links: Links
    let events: EventQueue

    public init(
        verifier: StorePurchaseVerifier, database: Database, policy: OtherUserPolicy, secrets: DomainSecrets, authMail: AuthMail,
        mail: MailQueue, links: Links, events: EventQueue = .disabled
    ) {
        self.events = events
        self.verifier = verifier
        self.database = database
        self.policy = policy
        self.secrets = secrets
        self.authMail = authMail
        self.mail = mail
        self.links = links
    }

    /// - Throws: `UseCaseError` (`invalid_receipt`, `upstream_unavailable`, `not_configured`,
    ///   `unauthorized`, `purchase_belongs_to_other_user` under `reject`), `StorageError`.
    public func claim(_ proof: Proof, by claimant: Claimant, now: Date) async throws -> Claimed {
        let verified: VerifiedStorePurchase
        switch proof {
        case .appStoreSignedTransaction(let jws): verified = try await verifier.appStore(signedTransaction: jws)
        case .appStoreReceipt(let receipt): verified = try await verifier.appStore(receiptBase64: receipt)
        case .appStoreTransactionID(let id): verified = try await verifier.appStore(transactionID: id)
        case .appStoreReceiptTransaction(let receipt, let id): verified = try await verifier.appStore(receiptBase64: receipt, transactionID: id)
        case .play(let token, let sku): verified = try await verifier.playStore(purchaseToken: token, productID: sku)
        }
        let policy = self.policy
        let secrets = self.secrets
        let authMail = self.authMail
        let links = self.links
        let events = self.events
        let provesHolder = proof.provesHolder(verified)
        let claimed = try await verifier.record(verified) { connection, applied -> Claimed in
            var signedIn = try BearerSession.account(for: claimant.bearer, on: connection, now: now)
            var appUserProof: AppUserProof?
            if signedIn == nil, let appUserID = claimant.appUserID {
                // An app user and its bound secret count as signed in; a wrong or missing one links nothing.
                try AccountRepository.lock(appUserID: appUserID, on: connection)
                let judged = try AppUserSecretRepository.proof(appUserID: appUserID, presented: claimant.secret, bearerAccountID: nil, on: connection)
                appUserProof = judged
                if judged == .proven { signedIn = try AccountRepository.find(appUserID: appUserID, on: connection)?.id }
            }
            try PurchaseClaim.linkByOwnerHint(applied.purchase, events: events, on: connection, now: now)
            let purchase = try PurchaseRepository.require(id: applied.purchase.id, on: connection)
            if appUserProof == .mismatch {
                var refused = Claimed(
                    account: nil, loginURL: nil, accountSwitched: false, emailConfirmationRequired: false, autoAccountCreated: false,
                    emailNotRequested: nil,
                    purchase: purchase)
                refused.secretMismatch = true
                return refused
            }
            if purchase.attribution == nil, let details = claimant.conversionDetails {
                try PurchaseRepository.setOrigin(purchaseID: purchase.id, appUserID: nil, attribution: details, email: nil, on: connection)
            }
            let plan = StoreClaimPlan.decide(
                signedIn: signedIn, holder: purchase.accountID, hasEmail: claimant.email != nil, claimProvesHolder: provesHolder,
                policy: policy)
            var target: String
            var switched = false
            var autoCreated = false
            var confirmationRequired = false
            var notRequested: EmailNotRequested?
            // Whether the caller proved `target`, the account that holds the purchase afterwards.
            var proved = true
            switch plan {
            case .signedIn(let account, let decision, let claimEmail):
                switch decision {
                case .reject:
                    throw UseCaseError.purchaseBelongsToOtherUser
                case .link:
                    try PurchaseRepository.link(purchaseID: purchase.id, to: account, proved: true, on: connection, now: now)
                    try events.purchaseLinked(purchase, to: account, on: connection, now: now)
                    target = account
                case .transfer where provesHolder:
                    try PurchaseRepository.link(purchaseID: purchase.id, to: account, proved: true, on: connection, now: now)
                    try events.purchaseLinked(purchase, to: account, on: connection, now: now)
                    target = account
                case .keep:
                    target = account
                case .switchToHolder(let holder) where provesHolder:
                    target = holder
                    switched = true
                    try events.accountSwitched(appUserID: nil, from: account, to: holder, purchase: purchase, on: connection, now: now)
                case .switchToHolder, .transfer:
                    // A bare transaction id or a family-shared transaction: the holder is not touched.
                    target = purchase.accountID ?? account
                    proved = false
                }
                if claimEmail, let email = claimant.email {
                    // The signed-in account asks for the address; it keeps a confirmed one until then.
                    confirmationRequired = try authMail.request(email, accountID: account, on: connection, now: now).confirmationRequired
                }
            case .holder(let holder, let claimEmail):
                target = holder
                proved = provesHolder
                if provesHolder, claimEmail, let email = claimant.email {
                    // Seed 004: the holder is updated, as an address request it confirms by mail.
                    confirmationRequired = try authMail.request(email, accountID: holder, on: connection, now: now).confirmationRequired
                } else if claimant.email != nil {
                    notRequested = .holderNotProved
                }
            case .createWithEmail:
                let email = claimant.email ?? ""
                let account = try AccountRepository.create(secrets: secrets, on: connection, now: now)
                try events.accountCreated(account.id, on: connection, now: now)
                try PurchaseRepository.link(purchaseID: purchase.id, to: account.id, proved: provesHolder, on: connection, now: now)
                try events.purchaseLinked(purchase, to: account.id, on: connection, now: now)
                _ = try authMail.request(email, accountID: account.id, on: connection, now: now)
                target = account.id
                confirmationRequired = true
            case .createAnonymous:
                // A generated username and no password: an account whose password no person chose
                // has none, so adding an address later leads to seed 004's set-password mail.
                let account = try AccountRepository.create(secrets: secrets, on: connection, now: now)
                _ = try AccountRepository.assignUsername(accountID: account.id, on: connection, now: now)
                try events.accountCreated(account.id, on: connection, now: now)
                try PurchaseRepository.link(purchaseID: purchase.id, to: account.id, proved: provesHolder, on: connection, now: now)
                try events.purchaseLinked(purchase, to: account.id, on: connection, now: now)
                target = account.id
                autoCreated = true
            }
            guard proved else {
                // No login, nobody's account touched: the answer says `session_required`.
                return Claimed(
                    account: try AccountRepository.require(id: target, on: connection), loginURL: nil, accountSwitched: false,
                    emailConfirmationRequired: confirmationRequired, autoAccountCreated: false, emailNotRequested: notRequested,
                    purchase: try PurchaseRepository.require(id: purchase.id, on: connection))
            }
            // A new app user joins the account it proved, binding its secret (the call creates it).
            if appUserProof == .bindsNew, let appUserID = claimant.appUserID, let secret = claimant.secret {
                try AccountRepository.link(appUserID: appUserID, to: target, on: connection, now: now)
                try AppUserSecretRepository.bind(secret, appUserID: appUserID, deviceID: nil, on: connection, now: now)
            }
            // A receipt's other purchases go with the one claimed.
            _ = try PurchaseClaim.claimAlongside(verified.alongside, for: target, policy: policy, events: events, on: connection, now: now)
            let token = try AuthTokenRepository.issue(.login, accountID: target, codeChallenge: claimant.codeChallenge, on: connection, now: now)
            return Claimed(
                account: try AccountRepository.require(id: target, on: connection), loginURL: links.url("/auth/login?token=" + token),
                accountSwitched: switched,
                emailConfirmationRequired: confirmationRequired, autoAccountCreated: autoCreated, emailNotRequested: notRequested,
                purchase: try PurchaseRepository.require(id: purchase.id, on: connection))
        }
        if claimed.emailConfirmationRequired { mail.queued() }
        return claimed
    }
}
