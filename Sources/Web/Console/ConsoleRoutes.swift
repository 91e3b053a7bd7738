import Domain
import Foundation
import HTTPCore
import HTTPRouting
import Templating
import UseCases

/// The operators' console under `/console/` (API.md "The operators' console"): sign-in with
/// password and TOTP, the invitation page, the pages (attention, search, a buyer, the audit
/// log) and the actions, each a POST with `csrf` and `reason`. Web only translates: each route
/// finds the session, decodes the form, calls one use case (which checks the role) and renders
/// or redirects. App mounts these routes only when `console.enabled` is on; otherwise every
/// `/console/*` path is a 404.
public struct ConsoleRoutes: Sendable {
    /// The use cases the console calls.
    public struct UseCaseSet: Sendable {
        public var signIn: ConsoleSignIn
        public var operators: ConsoleOperators
        public var queries: ConsoleQueries
        public var actions: ConsoleActions
        public var operatorActions: OperatorActions
        public var deleteAccount: DeleteAccount
        public var exportAccount: ExportAccount
        public var manualEntitlements: ManualEntitlements
        public var formTokens: FormTokens

        public init(
            signIn: ConsoleSignIn, operators: ConsoleOperators, queries: ConsoleQueries, actions: ConsoleActions, operatorActions: OperatorActions,
            deleteAccount: DeleteAccount, exportAccount: ExportAccount, manualEntitlements: ManualEntitlements, formTokens: FormTokens
        ) {
            self.signIn = signIn
            self.operators = operators
            self.queries = queries
            self.actions = actions
            self.operatorActions = operatorActions
            self.deleteAccount = deleteAccount
            self.exportAccount = exportAccount
            self.manualEntitlements = manualEntitlements
            self.formTokens = formTokens
        }
    }

    let cases: UseCaseSet
    let gate: ConsoleGate
    let pages: Pages
    let now: @Sendable () -> Date

    public init(settings: WebSettings, pages: Pages, useCases: UseCaseSet, now: @escaping @Sendable () -> Date) {
        cases = useCases
        gate = ConsoleGate(
            signIn: useCases.signIn, forms: useCases.formTokens, clientAddress: settings.clientAddress,
            secure: settings.baseURL.hasPrefix("https://"), now: now)
        self.pages = pages
        self.now = now
    }

    /// Adds every console route to `group`.
    public func add(to group: inout RouteGroup) {
        ConsoleSignInRoutes(cases: cases, gate: gate, pages: pages, now: now).add(to: &group)
        ConsolePageRoutes(queries: cases.queries, grantable: cases.manualEntitlements.known, gate: gate, pages: pages, now: now).add(to: &group)
        ConsoleActionRoutes(cases: cases, gate: gate, now: now).add(to: &group)
    }
}
