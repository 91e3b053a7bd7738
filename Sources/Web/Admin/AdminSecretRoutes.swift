import Foundation
import HTTPCore
import HTTPRouting
import UseCases

/// `POST /admin/v1/accounts/{id}/forget-secrets` `{"reason"}`: support's "forget secrets"
/// (`OperatorActions.forgetSecrets`), audited under the operator's token.
struct AdminSecretRoutes {
    let operations: OperatorActions
    let now: @Sendable () -> Date

    struct Body: Decodable {
        let reason: String
    }

    func add(to group: inout RouteGroup) {
        group.add(.post, "/admin/v1/accounts/{id}/forget-secrets", maxBodyBytes: 4096) { [operations, now] request, context in
            let body = try request.decodeJSON(Body.self, context)
            let accountID = context.parameters["id"] ?? ""
            let unbound = try await operations.forgetSecrets(
                accountID: accountID, reason: body.reason, actor: context.authenticatedAs ?? "admin", now: now())
            return .json { json in
                json.string("status", "forgotten")
                json.string("account_id", accountID)
                json.int("secrets_unbound", unbound)
            }
        }
    }
}
