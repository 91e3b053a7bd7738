import Domain
import Foundation
import HTTPCore
import HTTPRouting
import UseCases

/// `/admin/v1/codes/resend`, `/admin/v1/codes/{id}/revoke`, `/admin/v1/codes?email=`,
/// `/admin/v1/purchases?email=`, `/admin/v1/accounts?email=`, `/admin/v1/audit`: operators'
/// view and actions (`OperatorActions`), behind admin tokens, audited.
struct AdminCodeRoutes {
    let operations: OperatorActions
    let now: @Sendable () -> Date

    struct ResendBody: Decodable {
        let email: String?
        let purchaseId: String?
    }

    func add(to group: inout RouteGroup) {
        group.add(.post, "/admin/v1/codes/resend", maxBodyBytes: 4096) { [operations, now] request, context in
            let body = try request.decodeJSON(ResendBody.self, context)
            guard (body.email == nil) != (body.purchaseId == nil) else {
                throw APIError.badRequest("Send exactly one of email and purchase_id.")
            }
            let resent = try await operations.resend(
                email: body.email?.lowercased(), purchaseID: body.purchaseId, by: AdminActor.from(context), now: now())
            return .json { json in
                json.string("sent_to", EmailMask.mask(resent.email))
                json.string("code_id", resent.codeID)
                json.string("expires_at", Timestamp.rfc3339(resent.expiresAt))
            }
        }
        group.add(.post, "/admin/v1/codes/{id}/revoke") { [operations, now] _, context in
            let record = try await operations.revoke(codeID: context.parameters["id"] ?? "", by: AdminActor.from(context), now: now())
            return .json { json in
                json.string("code_id", record.id)
                json.string("status", record.status.rawValue)
            }
        }
        group.add(.get, "/admin/v1/codes") { [operations] request, _ in
            let codes = try await operations.codes(email: try Self.email(request))
            return .json { json in
                json.array("codes", codes) { json, code in
                    json.object { item in Self.write(code, into: &item) }
                }
            }
        }
        group.add(.get, "/admin/v1/purchases") { [operations] request, _ in
            let purchases = try await operations.purchases(email: try Self.email(request))
            return .json { json in
                json.array("purchases", purchases) { json, purchase in
                    json.object { item in
                        item.string("id", purchase.id)
                        item.string("platform", purchase.platform.rawValue)
                        item.string("external_id", purchase.externalID)
                        item.string("product_id", purchase.productID)
                        item.string("status", purchase.status.rawValue)
                        item.string("expires_at", purchase.expiresAt.map(Timestamp.rfc3339))
                        PurchaseJSON.writeRenewal(willRenew: purchase.willRenew, renewsToProductID: purchase.renewsToProductID, into: &item)
                        item.string("offer_type", purchase.offerType)
                        item.string("account_id", purchase.accountID)
                        item.string("app_user_id", purchase.appUserID)
                        // The paywall context or the SDK's conversion_details, as they came.
                        item.storedObject("attribution", purchase.attribution)
                        item.string("created_at", Timestamp.rfc3339(purchase.createdAt))
                    }
                }
            }
        }
        group.add(.get, "/admin/v1/accounts") { [operations] request, _ in
            let accounts = try await operations.accounts(email: try Self.email(request))
            return .json { json in
                json.array("accounts", accounts) { json, entry in
                    json.object { item in
                        item.string("id", entry.account.id)
                        item.string("obfuscated_account_id", entry.account.obfuscatedID)
                        item.string("email", entry.account.email)
                        item.bool("email_verified", entry.account.emailVerified)
                        item.string("username", entry.account.username)
                        item.bool("has_password", entry.account.hasPassword)
                        item.string("created_at", Timestamp.rfc3339(entry.account.createdAt))
                        item.strings("app_user_ids", entry.appUserIDs)
                        item.strings("devices", entry.devices)
                        item.strings("purchase_ids", entry.purchaseIDs)
                    }
                }
            }
        }
        group.add(.get, "/admin/v1/audit") { [operations] request, _ in
            let entries = try await operations.audit(limit: try AdminQuery.limit(request))
            return .json { json in
                json.array("entries", entries) { json, entry in
                    json.object { item in
                        item.string("id", entry.id)
                        item.string("actor", entry.actor)
                        item.string("action", entry.action)
                        item.string("target", entry.target)
                        item.string("details", entry.details)
                        item.string("created_at", Timestamp.rfc3339(entry.createdAt))
                    }
                }
            }
        }
    }

    static func write(_ code: RedemptionCodeRecord, into item: inout JSONWriter) {
        item.string("id", code.id)
        item.string("purchase_id", code.purchaseID)
        item.string("status", code.status.rawValue)
        item.string("hint", "…" + code.hint)
        item.string("expires_at", Timestamp.rfc3339(code.expiresAt))
        item.string("redeemed_at", code.redeemedAt.map(Timestamp.rfc3339))
        item.string("created_at", Timestamp.rfc3339(code.createdAt))
    }

    static func email(_ request: HTTPRequest) throws -> String {
        guard let email = request.queryParameter("email").flatMap(EmailAddress.normalized) else {
            throw APIError.badRequest("Send ?email= with an email address.")
        }
        return email
    }
}
