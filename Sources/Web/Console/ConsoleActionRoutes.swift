import Domain
import Foundation
import HTTPCore
import HTTPRouting
import UseCases

/// The console's actions at API.md's fixed paths, each a POST form with `csrf` and a `reason`
/// (1–500 characters): the route checks the form's token (403, nothing done), decodes the
/// fields, calls the one use case the admin API and the CLI call too (it checks the role: 403,
/// nothing done; and writes the audit entry), then `303` back to the buyer with a notice.
struct ConsoleActionRoutes {
    let cases: ConsoleRoutes.UseCaseSet
    let gate: ConsoleGate
    let now: @Sendable () -> Date

    /// The longest reason kept.
    static let maximumReasonLength = 500

    func add(to group: inout RouteGroup) {
        action(&group, "/console/purchases/{id}/resend-code") { id, _, actor in
            _ = try await cases.operatorActions.resend(email: nil, purchaseID: id, by: actor, now: now())
            return nil
        }
        action(&group, "/console/codes/{id}/revoke") { id, _, actor in
            _ = try await cases.operatorActions.revoke(codeID: id, by: actor, now: now())
            return nil
        }
        action(&group, "/console/devices/{id}/sign-out") { id, fields, actor in
            try await cases.actions.signOutDevice(accountID: fields["account_id"] ?? "", deviceID: id, by: actor, now: now())
            return nil
        }
        action(&group, "/console/accounts/{id}/sign-out-everywhere") { id, _, actor in
            try await cases.actions.signOutEverywhere(accountID: id, by: actor, now: now())
            return nil
        }
        action(&group, "/console/accounts/{id}/resend-confirmation") { id, _, actor in
            try await cases.actions.resendConfirmation(accountID: id, by: actor, now: now())
            return nil
        }
        action(&group, "/console/purchases/{id}/move") { id, fields, actor in
            let appUserID = try AppUserIDInput.require(fields["app_user_id"] ?? "")
            let accountID = try await cases.actions.movePurchase(purchaseID: id, toAppUserID: appUserID, by: actor, now: now())
            return .redirect(to: ConsoleView.buyerURL(accountID) + "?notice=done", status: .seeOther)
        }
        action(&group, "/console/accounts/{id}/entitlements") { id, fields, actor in
            // `end` (any non-empty value) ends the live manual grant of `entitlement` (or of the
            // entitlement `end` names); otherwise `entitlement` is granted through the day `until`.
            let entitlement = fields["entitlement"] ?? ""
            if let end = fields["end"], !end.isEmpty {
                let named = entitlement.isEmpty ? end : entitlement
                try await cases.manualEntitlements.end(accountID: id, entitlement: named, by: actor, now: now())
            } else {
                _ = try await cases.manualEntitlements.grant(
                    accountID: id, entitlement: entitlement, until: fields["until"] ?? "", by: actor, now: now())
            }
            return .redirect(to: ConsoleView.buyerURL(id) + "?notice=done", status: .seeOther)
        }
        action(&group, "/console/accounts/{id}/export") { id, _, actor in
            AccountDataRoutes.download(try await cases.exportAccount.byOperator(accountID: id, by: actor, now: now()))
        }
        action(&group, "/console/accounts/{id}/delete") { id, _, actor in
            _ = try await cases.deleteAccount.byOperator(accountID: id, by: actor, now: now())
            return .redirect(to: "/console/?notice=done", status: .seeOther)
        }
        action(&group, "/console/retry/{kind}/{id}") { id, fields, actor in
            switch fields["kind"] {
            case "mail": try await cases.actions.retryMail(id: id, by: actor, now: now())
            case "event": _ = try await cases.operatorActions.redeliver(eventID: id, by: actor, now: now())
            case "report": try await cases.actions.retryReport(id: id, by: actor, now: now())
            default: throw APIError.notFound()
            }
            return nil
        }
    }

    /// Registers one action: session (else 303 to sign-in), CSRF, reason, then `body` with the
    /// path's `id`, the form's fields (plus the path's `kind`) and the actor. `body` returns its
    /// own response, or nil for `303` back to the form's `back` buyer page (else the attention page).
    private func action(
        _ group: inout RouteGroup, _ pattern: String,
        _ body: @escaping @Sendable (String, [String: String], AuditActor) async throws -> HTTPResponse?
    ) {
        group.add(.post, pattern, maxBodyBytes: 8192) { [gate] request, context in
            guard let session = try await gate.session(request) else { return .redirect(to: "/console/sign-in", status: .seeOther) }
            var fields = try gate.form(request, session)
            let reason = (fields["reason"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            guard !reason.isEmpty, reason.count <= Self.maximumReasonLength else {
                throw APIError.badRequest("Say why, in 1 to \(Self.maximumReasonLength) characters (the reason field): it goes to the audit log.")
            }
            if let kind = context.parameters["kind"] { fields["kind"] = kind }
            let actor = gate.actor(session, request, context).giving(reason)
            var response =
                try await body(context.parameters["id"] ?? "", fields, actor)
                ?? .redirect(to: Self.back(fields["back"]) + "?notice=done", status: .seeOther)
            response.headers.set("Cache-Control", "no-store")
            return response
        }
    }

    /// The buyer page a form came from (`back`: a buyer id), else the attention page.
    static func back(_ buyerID: String?) -> String {
        guard let buyerID, !buyerID.isEmpty, buyerID.utf8.count <= 128 else { return "/console/" }
        return ConsoleView.buyerURL(buyerID)
    }
}
