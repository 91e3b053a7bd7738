import Domain
import Foundation
import HTTPServer

/// `/admin/v1/codes/resend`, `/admin/v1/codes/{id}/revoke`, `/admin/v1/codes?email=`,
/// `/admin/v1/purchases?email=`, `/admin/v1/audit`: operators' view and actions, behind
/// admin tokens, audited.
struct AdminCodeRoutes {
    let services: AppServices
    let admin: AdminAuthenticator

    struct ResendBody: Decodable {
        let email: String?
        let purchaseId: String?
    }

    func register(on router: inout Router) {
        let operations = AdminOperations(services: services)
        router.add(.post, "/admin/v1/codes/resend", maxBodyBytes: 4096) { [admin] request, _ in
            let actor = try admin.authenticate(request)
            let body = try request.decodeJSON(ResendBody.self)
            guard (body.email == nil) != (body.purchaseId == nil) else {
                throw APIError.badRequest("Send exactly one of email and purchase_id.")
            }
            let resent = try await operations.resend(email: body.email?.lowercased(), purchaseID: body.purchaseId, actor: actor)
            return .json { json in
                json.string("sent_to", EmailMask.mask(resent.email))
                json.string("code_id", resent.codeID)
                json.string("expires_at", Timestamp.rfc3339(resent.expiresAt))
            }
        }
        router.add(.post, "/admin/v1/codes/{id}/revoke") { [admin] request, context in
            let actor = try admin.authenticate(request)
            let record = try await operations.revoke(codeID: context.parameters["id"] ?? "", actor: actor)
            return .json { json in
                json.string("code_id", record.id)
                json.string("status", record.status.rawValue)
            }
        }
        router.add(.get, "/admin/v1/codes") { [admin] request, _ in
            _ = try admin.authenticate(request)
            let codes = try await operations.codes(email: try Self.email(request))
            return .json { json in
                json.array("codes", codes) { json, code in
                    json.object { item in Self.write(code, into: &item) }
                }
            }
        }
        router.add(.get, "/admin/v1/purchases") { [admin] request, _ in
            _ = try admin.authenticate(request)
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
                        item.string("account_id", purchase.accountID)
                        item.string("app_user_id", purchase.appUserID)
                        item.string("created_at", Timestamp.rfc3339(purchase.createdAt))
                    }
                }
            }
        }
        router.add(.get, "/admin/v1/audit") { [services, admin] request, _ in
            _ = try admin.authenticate(request)
            let limit = try AdminQuery.limit(request)
            let entries = try await services.database.read { try AuditLog.recent(limit: limit, on: $0) }
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
