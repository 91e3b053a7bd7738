import Domain
import Foundation
import HTTPCore
import HTTPRouting
import JSON
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
            Self.download(try await export.signedIn(.bearer(context.bearerToken), now: now()))
        }
    }

    /// The export as a JSON download (also `GET /account/export`, `WebAccountRoutes`).
    static func download(_ document: ExportAccount.Document) -> HTTPResponse {
        var response = HTTPResponse.json(AccountExportJSON.encode(document))
        response.headers.set("Content-Disposition", "attachment; filename=\"tollgate-account-\(document.records.account.id).json\"")
        response.headers.set("Cache-Control", "no-store")
        return response
    }
}

/// The export document: `{"exported_at", "account", "app_users", "devices", "purchases",
/// "entitlements", "codes", "mail", "audit"}`, keys sorted at every depth, indented for reading
/// (two spaces, `"key": value`), a purchase's stored attribution as the object it was sent as.
enum AccountExportJSON {
    static func encode(_ document: ExportAccount.Document) -> [UInt8] {
        let records = document.records
        let account = records.account
        let object: JSONValue = [
            "exported_at": date(document.exportedAt),
            "account": [
                "id": text(account.id), "obfuscated_account_id": text(account.obfuscatedID), "email": text(account.email),
                "email_verified": .bool(account.emailVerified), "username": text(account.username), "has_password": .bool(account.hasPassword),
                "created_at": date(account.createdAt)
            ],
            "app_users": .array(
                records.appUsers.map { user in
                    ["app_user_id": text(user.appUserID), "created_at": date(user.createdAt), "last_seen_at": date(user.lastSeenAt)]
                }),
            "devices": .array(
                records.devices.map { device in
                    [
                        "device_id": text(device.deviceID), "app_user_id": text(device.appUserID), "created_at": date(device.createdAt),
                        "last_seen_at": date(device.lastSeenAt), "signed_out_at": date(device.signedOutAt)
                    ]
                }),
            "purchases": .array(records.purchases.map(purchase)),
            "entitlements": .array(
                document.entitlements.map { entitlement in
                    [
                        "id": text(entitlement.id), "active": .bool(entitlement.active), "expires_at": date(entitlement.expiresAt),
                        "source": text(entitlement.sourceName)
                    ]
                }),
            "codes": .array(
                records.codes.map { code in
                    [
                        "id": text(code.id), "purchase_id": text(code.purchaseID), "status": text(code.status.rawValue),
                        "hint": text("…" + code.hint),
                        "expires_at": date(code.expiresAt), "redeemed_at": date(code.redeemedAt), "created_at": date(code.createdAt)
                    ]
                }),
            "mail": .array(
                document.mail.map { entry in
                    [
                        "id": text(entry.id), "template": text(entry.template), "to": text(entry.maskedRecipient),
                        "status": text(entry.status.rawValue),
                        "created_at": date(entry.createdAt), "sent_at": date(entry.sentAt)
                    ]
                }),
            "audit": .array(
                records.audit.map { entry in
                    [
                        "id": text(entry.id), "actor": text(entry.actor), "action": text(entry.action), "target": text(entry.target),
                        "details": text(entry.details), "created_at": date(entry.createdAt)
                    ]
                })
        ]
        return object.keysSorted.prettySerialized()
    }

    private static func purchase(_ purchase: Purchase) -> JSONValue {
        // Stored attribution is JSON text: written as the value it holds (types kept), null if unreadable.
        let attribution = purchase.attribution.flatMap { try? JSONValue.parse(Array($0.utf8)) } ?? .null
        return [
            "id": text(purchase.id), "platform": text(purchase.platform.rawValue),
            "external_id": text(purchase.platform == .playStore ? nil : purchase.externalID),
            "product_id": text(purchase.productID), "status": text(purchase.status.rawValue), "expires_at": date(purchase.expiresAt),
            "environment": text(purchase.environment), "purchaser_email": text(purchase.purchaserEmail),
            "stripe_customer_id": text(purchase.platform == .stripe ? purchase.customerID : nil),
            "app_user_id": text(purchase.appUserID), "attribution": attribution, "created_at": date(purchase.createdAt)
        ]
    }

    private static func date(_ date: Date?) -> JSONValue { text(date.map(Timestamp.rfc3339)) }

    private static func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
}
