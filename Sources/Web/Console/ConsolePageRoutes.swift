import Domain
import Foundation
import HTTPCore
import HTTPRouting
import Templating
import UseCases

/// The console's pages, for every role: `GET /console/` (what needs attention), `/console/search?q=`,
/// `/console/accounts/{id}` (one buyer) and `/console/audit` (newest first, by operator or
/// action, paged with `before`). Lists show masked emails; a buyer's page shows theirs in full.
struct ConsolePageRoutes {
    let queries: ConsoleQueries
    /// The entitlements config knows (the manual grant form's choices).
    let grantable: [String]
    let gate: ConsoleGate
    let pages: Pages
    let now: @Sendable () -> Date

    func add(to group: inout RouteGroup) {
        group.add(.get, "/console/") { [self] request, context in
            try await gate.signedIn(request) { session in
                let attention = try await queries.attention(by: gate.actor(session, request, context), now: now())
                var values = try common(session, request)
                values["unredeemed"] = .list(
                    attention.unredeemed.map { purchase in
                        [
                            "buyer_url": .string(ConsoleView.buyerURL(purchase.accountID ?? purchase.id)),
                            "email": .string(purchase.purchaserEmail.map(EmailMask.mask) ?? ""), "product": .string(purchase.productID),
                            "created": .string(ConsoleView.date(purchase.createdAt))
                        ]
                    })
                values["failed_mail"] = .list(attention.failedMail.map(ConsoleView.mail))
                values["failed_events"] = .list(
                    attention.failedDeliveries.map { delivery in
                        [
                            "id": .string(delivery.eventID), "type": .string(delivery.eventType),
                            "created": .string(ConsoleView.date(delivery.createdAt)),
                            "error": .string(delivery.lastError ?? ""), "buyer_url": .string(delivery.accountID.map(ConsoleView.buyerURL) ?? "")
                        ]
                    })
                values["stuck_reports"] = .list(attention.stuckReports.map(ConsoleView.report))
                // Issue 42's two views of the same week: who pays twice, and how far buyers got.
                let pairs = try await queries.duplicates(by: gate.actor(session, request, context), now: now())
                values["duplicates"] = .list(
                    pairs.map { pair in
                        [
                            "buyer_url": .string(ConsoleView.buyerURL(pair.accountID)),
                            "email": .string((pair.first.purchaserEmail ?? pair.second.purchaserEmail).map(EmailMask.mask) ?? ""),
                            "detail": .string(
                                "\(pair.entitlement): \(pair.first.platform.rawValue) \(pair.first.productID) + \(pair.second.platform.rawValue) \(pair.second.productID)"
                            )
                        ]
                    })
                let funnel = try await queries.funnel(by: gate.actor(session, request, context), now: now())
                values["funnel_paid"] = .string(String(funnel.paid))
                values["funnel_success_page_seen"] = .string(String(funnel.successPageSeen))
                values["funnel_redeemed"] = .string(String(funnel.redeemed))
                values["funnel_within_5m"] = .string(String(funnel.redeemedWithin5m))
                values["funnel_within_1h"] = .string(String(funnel.redeemedWithin1h))
                values["funnel_within_24h"] = .string(String(funnel.redeemedWithin24h))
                values["funnel_median_seconds"] = .string(funnel.medianSecondsToRedeem.map { String(Int($0.rounded())) } ?? "–")
                values["funnel_unredeemed_24h"] = .string(String(funnel.unredeemedOver24h))
                return try pages.render("console_home", language: pages.language(for: request), ConsoleView.flaggingLists(values))
            }
        }
        group.add(.get, "/console/search") { [self] request, context in
            try await gate.signedIn(request) { session in
                let query = String((request.queryParameter("q") ?? "").prefix(256))
                var values = try common(session, request)
                values["q"] = .string(query)
                if !query.trimmingCharacters(in: .whitespaces).isEmpty {
                    let hits = try await queries.search(query, by: gate.actor(session, request, context))
                    values["searched"] = true
                    values["hits"] = .list(
                        hits.map { hit in
                            [
                                "buyer_url": .string(ConsoleView.buyerURL(hit.buyerID)), "email": .string(hit.email.map(EmailMask.mask) ?? ""),
                                "matched": .string(hit.matched), "created": .string(ConsoleView.date(hit.createdAt)),
                                "has_account": .bool(hit.accountID != nil), "id": .string(hit.buyerID)
                            ]
                        })
                }
                return try pages.render("console_search", language: pages.language(for: request), ConsoleView.flaggingLists(values))
            }
        }
        group.add(.get, "/console/accounts/{id}") { [self] request, context in
            try await gate.signedIn(request) { session in
                let buyer = try await queries.buyer(context.parameters["id"] ?? "", by: gate.actor(session, request, context))
                var values = try common(session, request)
                for (key, value) in ConsoleView.buyer(buyer, role: session.role, now: now()) { values[key] = value }
                values["grantable"] = .list(grantable.map { ["id": .string($0)] })
                return try pages.render("console_buyer", language: pages.language(for: request), ConsoleView.flaggingLists(values))
            }
        }
        group.add(.get, "/console/audit") { [self] request, context in
            try await gate.signedIn(request) { session in
                let actorFilter = request.queryParameter("operator").flatMap { $0.isEmpty ? nil : String($0.prefix(256)) }
                let actionFilter = request.queryParameter("action").flatMap { $0.isEmpty ? nil : String($0.prefix(64)) }
                let before = request.queryParameter("before").flatMap { Int64($0) }
                let entries = try await queries.audit(
                    actor: actorFilter, action: actionFilter, before: before, by: gate.actor(session, request, context))
                var values = try common(session, request)
                values["operator_filter"] = .string(actorFilter ?? "")
                values["action_filter"] = .string(actionFilter ?? "")
                values["entries"] = .list(entries.map(ConsoleView.audit))
                if entries.count == ConsoleQueries.pageSize, let last = entries.last {
                    var next = "/console/audit?before=\(Timestamp.milliseconds(last.createdAt))"
                    if let actorFilter { next += "&operator=" + ConsoleView.escapeQuery(actorFilter) }
                    if let actionFilter { next += "&action=" + ConsoleView.escapeQuery(actionFilter) }
                    values["next_url"] = .string(next)
                }
                return try pages.render("console_audit", language: pages.language(for: request), ConsoleView.flaggingLists(values))
            }
        }
    }

    /// What every console page shows: who is signed in, their role and the forms' token.
    private func common(_ session: ConsoleSignIn.Session, _ request: HTTPRequest) throws -> [String: TemplateValue] {
        var values: [String: TemplateValue] = [
            "operator_email": .string(session.email), "operator_role": .string(session.role.rawValue),
            "csrf": .string(try gate.formToken(session)),
            "can_support": .bool(session.role.allows(.resendCode)), "is_admin": .bool(session.role.allows(.manageOperators))
        ]
        if let notice = request.queryParameter("notice"), ConsoleView.notices.contains(notice) { values["notice_" + notice] = true }
        return values
    }
}
