import Domain
import Foundation
import App

extension AdminCommand {
    /// The audit-log actor for commands run on the host.
    static var actor: String { "cli:" + (ProcessInfo.processInfo.environment["USER"] ?? "unknown") }

    /// `admin resend --email E | --purchase-id P`.
    static func resend(_ services: UseCaseFactory, options: [String: String]) async throws {
        let email = options["email"]?.lowercased()
        let purchaseID = options["purchase-id"]
        guard (email == nil) != (purchaseID == nil) else {
            throw UsageError(message: "admin resend needs exactly one of --email and --purchase-id")
        }
        let resent = try await services.operatorActions.resend(email: email, purchaseID: purchaseID, actor: actor, now: Date())
        print("Sent code \(resent.codeID) to \(TerminalText.safe(EmailMask.mask(resent.email))); valid until \(Timestamp.rfc3339(resent.expiresAt)).")
        // Deliver now rather than waiting for the service's worker.
        try await services.essentials.outboxWorker().runOnce()
    }

    /// `admin revoke CODE_ID`.
    static func revoke(_ services: UseCaseFactory, codeID: String?) async throws {
        guard let codeID else { throw UsageError(message: "admin revoke needs a CODE_ID (see 'tollgate admin codes --email')") }
        let record = try await services.operatorActions.revoke(codeID: codeID, actor: actor, now: Date())
        print("Code \(record.id) (…\(record.hint)) is \(record.status.rawValue).")
    }

    /// `admin codes --email E`.
    static func codes(_ services: UseCaseFactory, options: [String: String]) async throws {
        guard let email = options["email"] else { throw UsageError(message: "admin codes needs --email") }
        let codes = try await services.operatorActions.codes(email: email.lowercased())
        print(TerminalText.row(["ID", "PURCHASE", "STATUS", "HINT", "EXPIRES", "REDEEMED"]))
        for code in codes {
            print(
                TerminalText.row([
                    code.id, code.purchaseID, code.status.rawValue, "…" + code.hint, Timestamp.rfc3339(code.expiresAt),
                    code.redeemedAt.map(Timestamp.rfc3339) ?? ""
                ]))
        }
        print("\(codes.count) code(s)")
    }

    /// `admin purchases --email E`.
    static func purchases(_ services: UseCaseFactory, options: [String: String]) async throws {
        guard let email = options["email"] else { throw UsageError(message: "admin purchases needs --email") }
        let purchases = try await services.operatorActions.purchases(email: email.lowercased())
        print(TerminalText.row(["ID", "PLATFORM", "PRODUCT", "STATUS", "EXPIRES", "RENEWS", "ACCOUNT", "ATTRIBUTION"]))
        for purchase in purchases {
            // The attribution (paywall context, conversion_details) as stored: one line of JSON.
            let attribution = (purchase.attribution ?? "").replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\t", with: " ")
            print(
                TerminalText.row([
                    purchase.id, purchase.platform.rawValue, purchase.productID, purchase.status.rawValue,
                    purchase.expiresAt.map(Timestamp.rfc3339) ?? "", Self.renewal(of: purchase), purchase.accountID ?? "", attribution
                ]))
        }
        print("\(purchases.count) purchase(s)")
    }

    /// `yes`, `no`, `to <product>` (a pending downgrade), or empty while the store has not said.
    static func renewal(of purchase: Purchase) -> String {
        switch (purchase.willRenew, purchase.renewsToProductID) {
        case (true?, let next?): "to " + next
        case (true?, nil): "yes"
        case (false?, _): "no"
        case (nil, _): ""
        }
    }

    /// `admin accounts --email E`.
    static func accounts(_ services: UseCaseFactory, options: [String: String]) async throws {
        guard let email = options["email"] else { throw UsageError(message: "admin accounts needs --email") }
        let accounts = try await services.operatorActions.accounts(email: email.lowercased())
        print(TerminalText.row(["ID", "EMAIL", "CONFIRMED", "USERNAME", "APP USERS", "DEVICES", "PURCHASES"]))
        for entry in accounts {
            print(
                TerminalText.row([
                    entry.account.id, entry.account.email ?? "", entry.account.emailVerified ? "yes" : "no", entry.account.username ?? "",
                    entry.appUserIDs.joined(separator: ","), String(entry.devices.count), String(entry.purchaseIDs.count)
                ]))
        }
        print("\(accounts.count) account(s)")
    }
}
