import Crypto
import Foundation
import HTTPCore
import HTTPRouting
import JSON

extension FakeAppStoreServer {
    /// Sends `notification` as the App Store does: signs it with `signer` and records it in the
    /// notification history of its environment (`environment` "Production" or else the sandbox),
    /// sent at its `signedDate` with `result` (`SUCCESS`, or e.g. `NO_RESPONSE` for one the
    /// server never got). Returns the webhook body `{"signedPayload": ...}` to POST.
    /// - Throws: `CryptoError` if signing fails.
    @discardableResult
    public func send(_ notification: FakeAppStoreNotification, signer: FakeAppStoreSigner, result: String = "SUCCESS") throws -> [UInt8] {
        let signed = try signer.signNotification(notification)
        let environment: Environment = notification.environment == "Production" ? .production : .sandbox
        box.state.withLock { $0.sent[environment, default: []].append(Sent(signedPayload: signed, sentAt: notification.signedDate, result: result)) }
        return JSONValue.object([("signedPayload", .string(signed))]).serialized()
    }

    /// Get Notification History: the notifications of this environment first sent in
    /// [`startDate`, `endDate`), oldest first, `historyPageSize` a page; `paginationToken` (one
    /// this fake issued for the same dates) asks for the next page. Apple's errors: a start or
    /// end that is not a number (4000015 / 4000016), a start not before the end (4000013), a
    /// start more than 180 days back (4000012), an unknown token (4000014).
    static func notificationHistory(_ request: HTTPRequest, environment: Environment, now: Date, box: Box) -> HTTPResponse {
        let object = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any] ?? [:]
        guard let start = (object["startDate"] as? NSNumber)?.int64Value else {
            return .appleError(
                code: 4000015, message: "Invalid request. The start date is not a timestamp value represented in milliseconds.", status: 400)
        }
        guard let end = (object["endDate"] as? NSNumber)?.int64Value else {
            return .appleError(
                code: 4000016, message: "Invalid request. The end date is not a timestamp value represented in milliseconds.", status: 400)
        }
        guard start < end else {
            return .appleError(
                code: 4000013, message: "Invalid request. The end date precedes the start date or the dates are the same.", status: 400)
        }
        guard start >= milliseconds(now.addingTimeInterval(-180 * 86400)) else {
            return .appleError(code: 4000012, message: "Invalid request. The start date is earlier than the allowed start date.", status: 400)
        }
        var offset = 0
        if let token = request.queryParameter("paginationToken") {
            guard let page = box.state.withLock({ $0.paginationTokens[token] }), page.environment == environment, page.start == start,
                page.end == end
            else { return .appleError(code: 4000014, message: "Invalid request. The pagination token is invalid.", status: 400) }
            offset = page.offset
        }
        let matching = box.state.withLock { $0.sent[environment] ?? [] }
            .filter { (start..<end).contains(milliseconds($0.sentAt)) }
        let page = matching.dropFirst(offset).prefix(historyPageSize)
        let hasMore = offset + page.count < matching.count
        let items: [JSONValue] = page.map { sent in
            .object([
                (
                    "sendAttempts",
                    .array([.object([("attemptDate", .integer(milliseconds(sent.sentAt))), ("sendAttemptResult", .string(sent.result))])])
                ),
                ("signedPayload", .string(sent.signedPayload))
            ])
        }
        var members: [(key: String, value: JSONValue)] = []
        if hasMore {
            let token = UUID().uuidString.lowercased()
            box.state.withLock { $0.paginationTokens[token] = (environment, start, end, offset + page.count) }
            members.append(("paginationToken", .string(token)))
        }
        members += [("hasMore", .bool(hasMore)), ("notificationHistory", .array(items))]
        return HTTPResponse(status: .ok, headers: ["Content-Type": "application/json"], body: JSONValue.object(members).serialized())
    }

    private static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
}
