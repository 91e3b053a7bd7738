import Domain
import Foundation
import Templating
import UseCases

/// How the console's pages show records: dates, masked emails in lists, ids, and what each row
/// offers (the forms the role allows). Never a code, token, receipt or payload.
enum ConsoleView {
    /// The notices an action's redirect may ask a page to show (`?notice=`).
    static let notices: Set<String> = ["done"]

    static func date(_ date: Date) -> String {
        let text = Timestamp.rfc3339(date)
        return text.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " UTC")
    }

    static func date(_ date: Date?) -> String { date.map { Self.date($0) } ?? "" }

    /// The buyer page of `id`, with the id percent-encoded.
    static func buyerURL(_ id: String) -> String { "/console/accounts/" + escapePath(id) }

    static func escapePath(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? ""
    }

    static func escapeQuery(_ text: String) -> String { escapePath(text) }

    static func mail(_ entry: ViewOutbox.Message) -> TemplateValue {
        [
            "id": .string(entry.id), "template": .string(entry.template), "email": .string(entry.maskedRecipient),
            "status": .string(entry.status), "attempts": .int(entry.attempts), "created": .string(date(entry.createdAt)),
            "sent": .string(date(entry.sentAt)), "failed": .bool(entry.status == "failed"), "error": .string(entry.lastError ?? "")
        ]
    }

    static func report(_ report: BuyerRecords.Report) -> TemplateValue {
        [
            "id": .string(report.id), "kind": .string(report.kind), "status": .string(report.status), "created": .string(date(report.createdAt)),
            "error": .string(report.lastError ?? ""), "failed": .bool(report.status == "failed"),
            "buyer_url": .string(report.purchaseID.map(buyerURL) ?? "")
        ]
    }

    static func audit(_ entry: AuditLog.Entry) -> TemplateValue {
        [
            "when": .string(date(entry.createdAt)), "actor": .string(entry.actor), "action": .string(entry.action),
            "target": .string(entry.target ?? ""), "details": .string(entry.details), "reason": .string(entry.reason ?? ""),
            "client": .string(entry.clientAddress ?? "")
        ]
    }

    /// `values` with `has_<name>` set for each non-empty list (templates test it before a table's head).
    static func flaggingLists(_ values: [String: TemplateValue]) -> [String: TemplateValue] {
        var flagged = values
        for (key, value) in values {
            if case .list(let items) = value, !items.isEmpty { flagged["has_" + key] = true }
        }
        return flagged
    }

    /// The values of the buyer page.
    static func buyer(_ buyer: ConsoleQueries.Buyer, role: OperatorRole, now: Date) -> [String: TemplateValue] {
        let records = buyer.records
        let canSupport = role.allows(.resendCode)
        let isAdmin = role.allows(.retryDelivery)
        var values: [String: TemplateValue] = [
            "buyer_id": .string(records.buyerID), "buyer_url": .string(buyerURL(records.buyerID)),
            "email": .string(records.email ?? ""), "has_account": .bool(records.account != nil),
            "account_id": .string(records.account?.id ?? ""),
            "email_verified": .bool(records.account?.emailVerified ?? false),
            "can_confirm": .bool(canSupport && records.account?.email != nil && records.account?.emailVerified == false),
            "account_created": .string(date(records.account?.createdAt)),
            "app_users": .list(records.appUserIDs.map { ["id": .string($0)] })
        ]
        let accountID = records.account?.id ?? ""
        values["devices"] = .list(
            records.devices.map { device in
                [
                    "id": .string(device.deviceID), "url_id": .string(escapePath(device.deviceID)), "app_user": .string(device.appUserID ?? ""),
                    "last_seen": .string(date(device.lastSeenAt)), "signed_out": .string(date(device.signedOutAt)),
                    "can_sign_out": .bool(canSupport && device.signedOutAt == nil), "account_id": .string(accountID)
                ]
            })
        values["purchases"] = .list(
            records.purchases.map { purchase in
                [
                    "id": .string(purchase.id), "platform": .string(purchase.platform.rawValue), "product": .string(purchase.productID),
                    "status": .string(purchase.status.rawValue), "expires": .string(date(purchase.expiresAt)),
                    "created": .string(date(purchase.createdAt)),
                    // A Play purchase token is a credential; Stripe's and Apple's ids are references support is handed.
                    "reference": .string(purchase.platform == .playStore ? "" : purchase.externalID),
                    "app_user": .string(purchase.appUserID ?? ""),
                    "can_resend": .bool(canSupport && purchase.platform == .stripe && purchase.purchaserEmail != nil),
                    "can_move": .bool(canSupport),
                    "has_history": .bool(!(records.history[purchase.id] ?? []).isEmpty),
                    "history": .list(
                        (records.history[purchase.id] ?? []).map { change in
                            [
                                "when": .string(date(change.createdAt)), "status": .string(change.status), "product": .string(change.productID),
                                "expires": .string(date(change.expiresAt)), "source": .string(change.source)
                            ]
                        })
                ]
            })
        values["codes"] = .list(
            records.codes.map { code in
                [
                    "id": .string(code.id), "purchase_id": .string(code.purchaseID), "status": .string(code.status.rawValue),
                    "issued": .string(date(code.createdAt)), "expires": .string(date(code.expiresAt)), "redeemed": .string(date(code.redeemedAt)),
                    "redeemed_by": .string(code.redeemedAppUserID ?? code.redeemedAccountID ?? ""),
                    "can_revoke": .bool(canSupport && code.status == .live)
                ]
            })
        values["mail"] = .list(
            buyer.mail.map { entry in
                guard case .dictionary(var row) = mail(entry) else { return mail(entry) }
                row["can_retry"] = .bool(isAdmin && entry.status == "failed")
                return .dictionary(row)
            })
        values["events"] = .list(
            records.events.map { event in
                [
                    "id": .string(event.id), "type": .string(event.type), "created": .string(date(event.createdAt)),
                    "deliveries": .string(event.deliveries), "can_retry": .bool(isAdmin && event.failedDeliveryID != nil)
                ]
            })
        values["reports"] = .list(
            records.reports.map { item in
                guard case .dictionary(var row) = report(item) else { return report(item) }
                row["can_retry"] = .bool(isAdmin && item.status == "failed")
                return .dictionary(row)
            })
        values["audit"] = .list(buyer.audit.map(audit))
        values["grants"] = .list(
            buyer.manualEntitlements.map { grant in
                [
                    "entitlement": .string(grant.entitlement), "until": .string(ManualEntitlements.day(grant.endsAt)),
                    "ends": .string(date(grant.endsAt)), "granted_by": .string(grant.grantedBy), "reason": .string(grant.reason),
                    "granted": .string(date(grant.createdAt)), "ended": .string(date(grant.endedAt)), "ended_by": .string(grant.endedBy ?? ""),
                    "can_end": .bool(role.allows(.entitlements) && grant.isActive(at: now))
                ]
            })
        values["can_grant"] = .bool(role.allows(.entitlements) && records.account != nil)
        values["can_sign_out_everywhere"] = .bool(canSupport && records.account != nil)
        values["can_export"] = .bool(role.allows(.exportAccount) && records.account != nil)
        values["can_delete"] = .bool(role.allows(.deleteAccount) && records.account != nil)
        return values
    }
}
