import Domain
import HTTPServer

/// `GET /admin/v1/accounts?email=`: the accounts that use an address, with their app users,
/// devices and purchases (never passwords or tokens).
struct AdminAccountRoutes {
    let services: AppServices
    let admin: AdminAuthenticator

    func register(on router: inout Router) {
        router.add(.get, "/admin/v1/accounts") { [services, admin] request, _ in
            _ = try admin.authenticate(request)
            let email = try AdminCodeRoutes.email(request)
            let accounts = try await AdminOperations(services: services).accounts(email: email)
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
    }
}
