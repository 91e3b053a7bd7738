import Domain
import Integrations

/// The link-out part of `/checkout/start` (API.md "Link-out compliance"): the app says where it
/// runs (`platform`, `storefront`) and passes its platform's token; the programme of that
/// storefront decides whether the checkout may start and whether the token is needed, and a
/// token for another app is refused. What passes is kept with the checkout, sealed, for the
/// reports.
public struct LinkOutCheckout: Sendable {
    /// What the app sent.
    public struct Request: Sendable, Equatable {
        public var platform: String?
        public var storefront: String?
        /// Apple's `ExternalPurchaseCustomLink` token (base64url JSON).
        public var externalPurchaseToken: String?
        /// Google Play Billing's external transaction token.
        public var externalTransactionToken: String?

        public init(platform: String?, storefront: String?, externalPurchaseToken: String?, externalTransactionToken: String?) {
            self.platform = platform
            self.storefront = storefront
            self.externalPurchaseToken = externalPurchaseToken
            self.externalTransactionToken = externalTransactionToken
        }

        /// Whether the app sent anything of it (a checkout from a plain browser sends nothing).
        public var isEmpty: Bool { platform == nil && storefront == nil && externalPurchaseToken == nil && externalTransactionToken == nil }
    }

    /// The app the tokens must be for.
    public struct App: Sendable, Equatable {
        /// `app.ios.bundle_id`.
        public var bundleID: String?
        /// `app.ios.app_apple_id`.
        public var appAppleID: Int64?

        public init(bundleID: String?, appAppleID: Int64?) {
            self.bundleID = bundleID
            self.appAppleID = appAppleID
        }
    }

    let eligibility: CheckoutEligibility
    let app: App

    public init(policy: LinkOutPolicy, app: App) {
        eligibility = CheckoutEligibility(policy: policy)
        self.app = app
    }

    /// The token to keep with the checkout, or nil when there is none to report.
    /// - Throws: `UseCaseError.badRequest`: a token without `platform` and `storefront`, a
    ///   storefront where the app may not link out, a programme's token missing, another
    ///   platform's token, a malformed token or one made for another app.
    public func check(_ request: Request) throws -> LinkOutTokenRepository.Presented? {
        guard !request.isEmpty else { return nil }
        guard request.platform != nil, request.storefront != nil else {
            throw UseCaseError.badRequest(
                "Send platform (ios or android) and storefront (as the app's store reports it, e.g. USA) with the app's token.")
        }
        let allowed = try eligibility.check(platform: request.platform, storefront: request.storefront)
        let storefront = try CheckoutEligibility.storefront(request.storefront)
        guard let rule = allowed.rule else {
            throw UseCaseError.badRequest("This app may not link out to web checkout from the \(storefront) storefront.")
        }
        let token: String?
        switch rule.platform {
        case .ios:
            if request.externalTransactionToken != nil {
                throw UseCaseError.badRequest("external_transaction_token is Google Play's; an iOS app sends external_purchase_token.")
            }
            token = request.externalPurchaseToken
        case .android:
            if request.externalPurchaseToken != nil {
                throw UseCaseError.badRequest("external_purchase_token is Apple's; an Android app sends external_transaction_token.")
            }
            token = request.externalTransactionToken
        }
        guard let token else {
            if rule.tokenRequired {
                let name = rule.platform == .ios ? "external_purchase_token" : "external_transaction_token"
                throw UseCaseError.badRequest("Checkout from the \(storefront) storefront needs the app's \(name) (programme \(rule.program)).")
            }
            return nil
        }
        guard let reporting = rule.reporting else { return nil }
        switch reporting {
        case .apple:
            let decoded: ExternalPurchaseToken
            do {
                decoded = try ExternalPurchaseToken(decoding: token)
                if let bundleID = app.bundleID { try decoded.check(bundleID: bundleID, appAppleID: app.appAppleID) }
            } catch AppStoreError.externalPurchaseToken(let error) {
                throw UseCaseError.badRequest("external_purchase_token is not this app's token: \(error.message)")
            }
            return .init(token: token, reporting: .apple, externalID: decoded.externalPurchaseID, program: rule.program, storefront: storefront)
        case .google:
            do {
                _ = try GooglePlayExternalTransactionToken(token)
            } catch {
                throw UseCaseError.badRequest("external_transaction_token is not a Google Play external transaction token.")
            }
            return .init(token: token, reporting: .google, externalID: nil, program: rule.program, storefront: storefront)
        }
    }
}
