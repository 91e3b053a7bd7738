import Domain
import Foundation
import HTTPCore
import HTTPRouting
import UseCases

/// `DELETE /api/v1/account` and `GET /api/v1/account/export` (bearer): the app's buttons for
/// "delete my account" and "download my data" (API.md "Account deletion and data export").
struct AccountDataRoutes {
    let delete: DeleteAccount
    let export: ExportAccount
    let now: @Sendable () -> Date

    func add(to group: inout RouteGroup) {
        group.add(.delete, "/api/v1/account", [BearerTokenMiddleware()]) { [delete, now] _, context in
            _ = try await delete.signedIn(.bearer(context.bearerToken), now: now())
            return .json { json in json.string("status", "deleted") }
        }
        group.add(.get, "/api/v1/account/export", [BearerTokenMiddleware()]) { [export, now] _, context in
            try Self.download(try await export.signedIn(.bearer(context.bearerToken), now: now()))
        }
    }

    /// The export as a JSON download (also `GET /account/export`, `WebAccountRoutes`).
    static func download(_ document: ExportAccount.Document) throws -> HTTPResponse {
        var response = HTTPResponse.json(try AccountExportJSON.encode(document))
        response.headers.set("Content-Disposition", "attachment; filename=\"tollgate-account-\(document.records.account.id).json\"")
        response.headers.set("Cache-Control", "no-store")
        return response
    }
}

/// The export document: `{"exported_at", "account", "app_users", "devices", "purchases",
/// "entitlements", "codes", "mail", "audit"}`, keys sorted, indented for reading.
enum AccountExportJSON {
    static func encode(_ document: ExportAccount.Document) throws -> [UInt8] {
        let records = document.records
        let account = records.account
        let object: [String: Any] = [
            "exported_at": Timestamp.rfc3339(document.exportedAt),
            "account": [
                "id": account.id, "obfuscated_account_id": account.obfuscatedID, "email": account.email ?? NSNull(),
                "email_verified": account.emailVerified, "username": account.username ?? NSNull(), "has_password": account.hasPassword,
                "created_at": Timestamp.rfc3339(account.createdAt)
            ] as [String: Any],
            "app_users": records.appUsers.map { user in
                ["app_user_id": user.appUserID, "created_at": Timestamp.rfc3339(user.createdAt), "last_seen_at": Timestamp.rfc3339(user.lastSeenAt)]
            },
            "devices": records.devices.map { device in
                [
                    "device_id": device.deviceID, "app_user_id": device.appUserID ?? NSNull(), "created_at": Timestamp.rfc3339(device.createdAt),
                    "last_seen_at": Timestamp.rfc3339(device.lastSeenAt), "signed_out_at": date(device.signedOutAt)
                ] as [String: Any]
            },
            "purchases": records.purchases.map(purchase),
            "entitlements": document.entitlements.map { entitlement in
                [
                    "id": entitlement.id, "active": entitlement.active, "expires_at": date(entitlement.expiresAt),
                    "source": entitlement.sourceName
                ] as [String: Any]
            },
            "codes": records.codes.map { code in
                [
                    "id": code.id, "purchase_id": code.purchaseID, "status": code.status.rawValue, "hint": "…" + code.hint,
                    "expires_at": Timestamp.rfc3339(code.expiresAt), "redeemed_at": date(code.redeemedAt),
                    "created_at": Timestamp.rfc3339(code.createdAt)
                ] as [String: Any]
            },
            "mail": document.mail.map { entry in
                [
                    "id": entry.id, "template": entry.template, "to": entry.maskedRecipient, "status": entry.status.rawValue,
                    "created_at": Timestamp.rfc3339(entry.createdAt), "sent_at": date(entry.sentAt)
                ] as [String: Any]
            },
            "audit": records.audit.map { entry in
                [
                    "id": entry.id, "actor": entry.actor, "action": entry.action, "target": entry.target ?? NSNull(),
                    "details": entry.details, "created_at": Timestamp.rfc3339(entry.createdAt)
                ] as [String: Any]
            }
        ]
        return Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]))
    }

    private static func purchase(_ purchase: Purchase) -> [String: Any] {
        var attribution: Any = NSNull()
        if let text = purchase.attribution, let parsed = try? JSONSerialization.jsonObject(with: Data(text.utf8)) {
            attribution = parsed
        }
        return [
            "id": purchase.id, "platform": purchase.platform.rawValue,
            "external_id": text(purchase.platform == .playStore ? nil : purchase.externalID),
            "product_id": purchase.productID, "status": purchase.status.rawValue, "expires_at": date(purchase.expiresAt),
            "environment": purchase.environment ?? NSNull(), "purchaser_email": purchase.purchaserEmail ?? NSNull(),
            "stripe_customer_id": text(purchase.platform == .stripe ? purchase.customerID : nil),
            "app_user_id": purchase.appUserID ?? NSNull(), "attribution": attribution, "created_at": Timestamp.rfc3339(purchase.createdAt)
        ]
    }

    private static func date(_ date: Date?) -> Any { text(date.map(Timestamp.rfc3339)) }

    private static func text(_ value: String?) -> Any { value.map { $0 as Any } ?? NSNull() }
}
