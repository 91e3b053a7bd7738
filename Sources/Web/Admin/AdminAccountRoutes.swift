import Foundation
import HTTPCore
import HTTPRouting
import UseCases

/// `DELETE /admin/v1/accounts/{id}`: an operator deletes an account as the app's button does
/// (`DeleteAccount`), audited under the operator's token.
struct AdminAccountRoutes {
    let delete: DeleteAccount
    let now: @Sendable () -> Date

    func add(to group: inout RouteGroup) {
        group.add(.delete, "/admin/v1/accounts/{id}") { [delete, now] _, context in
            let outcome = try await delete.byOperator(
                accountID: context.parameters["id"] ?? "", by: AdminActor.from(context), now: now())
            return .json { json in
                json.string("status", "deleted")
                json.string("account_id", outcome.accountID)
            }
        }
    }
}
