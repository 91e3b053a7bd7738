import Foundation
import HTTPCore
import HTTPRouting
import UseCases

/// `POST /receipts`: a partner backend reports a purchase for one of its users (API.md
/// "Server-to-server"), behind a server key (`X-API-KEY`) and with `X-PLATFORM-TYPE`
/// (`RecordReceipt`). Answer: `{"user_id", "account_id", "account_switched", "purchase": {...},
/// "entitlements": [...]}` with the entitlements of the account that now holds the purchase.
struct ReceiptsRoute {
    let record: RecordReceipt
    let now: @Sendable () -> Date

    func add(to group: inout RouteGroup) {
        group.add(.post, "/receipts", maxBodyBytes: 512 * 1024) { [self] request, context in
            let input = try ReceiptsRequest(request, context)
            let recorded = try await record.record(input.source, userID: input.userID, attribution: input.attribution, now: now())
            context.logger.info(
                "receipt_recorded",
                [
                    ("platform", .string(recorded.purchase.platform.rawValue)), ("purchase_id", .string(recorded.purchase.id)),
                    ("account_id", .string(recorded.accountID))
                ])
            return .json { json in
                json.string("status", "ok")
                json.string("user_id", input.userID)
                json.string("account_id", recorded.accountID)
                json.bool("account_switched", recorded.accountSwitched)
                PurchaseJSON.writePurchase(recorded.purchase, into: &json)
                PurchaseJSON.writeEntitlements(recorded.entitlements, withSource: true, into: &json)
            }
        }
    }
}
