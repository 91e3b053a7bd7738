import Foundation
import HTTPCore
import HTTPRouting

extension FakeGooglePlayCore {
    /// What a page token stands for: Google ignores `startTime`/`endTime` once a token is set, so
    /// the token carries the whole query.
    struct VoidedQuery: Equatable {
        var start: Int64
        var end: Int64
        var type: Int
        var includePartial: Bool
        var offset: Int

        /// An opaque token (hex of the fields), as Google's are opaque.
        var token: String {
            Array("\(start):\(end):\(type):\(includePartial ? 1 : 0):\(offset)".utf8).map { String(format: "%02x", $0) }.joined()
        }

        init(start: Int64, end: Int64, type: Int, includePartial: Bool, offset: Int) {
            self.start = start
            self.end = end
            self.type = type
            self.includePartial = includePartial
            self.offset = offset
        }

        init?(token: String) {
            let hex = Array(token.utf8)
            guard !hex.isEmpty, hex.count % 2 == 0 else { return nil }
            var bytes: [UInt8] = []
            for index in stride(from: 0, to: hex.count, by: 2) {
                guard let byte = UInt8(String(decoding: hex[index...index + 1], as: UTF8.self), radix: 16) else { return nil }
                bytes.append(byte)
            }
            let parts = String(decoding: bytes, as: UTF8.self).split(separator: ":").map(String.init)
            guard parts.count == 5, let start = Int64(parts[0]), let end = Int64(parts[1]), let type = Int(parts[2]),
                let offset = Int(parts[4]), offset >= 0
            else { return nil }
            self.init(start: start, end: end, type: type, includePartial: parts[3] == "1", offset: offset)
        }
    }

    /// `GET …/purchases/voidedpurchases`: the voided orders Google saw voided in
    /// `startTime...endTime` (defaults: 30 days ago ... now), one-time products only unless
    /// `type=1`, partial refunds only with `includeQuantityBasedPartialRefund=true`, `maxResults`
    /// per page with `tokenPagination.nextPageToken` while more remain.
    func listVoided(_ request: HTTPRequest) -> HTTPResponse {
        func invalid(_ message: String) -> HTTPResponse {
            Self.googleError(400, message, reason: "invalid", status: "INVALID_ARGUMENT")
        }
        let nowMillis = Self.millis(now())
        var pageSize = state.withLock { $0.voidedPageSize }
        if let text = request.queryParameter("maxResults") {
            guard let value = UInt32(text) else { return invalid("Invalid value at 'max_results' (TYPE_UINT32), \"\(text)\"") }
            if value > 0 { pageSize = Int(value) }
        }
        var query: VoidedQuery
        if let token = request.queryParameter("token") {
            guard let decoded = VoidedQuery(token: token) else { return invalid("Invalid pagination token.") }
            query = decoded
        } else {
            var start = nowMillis - 30 * 86_400_000
            var end = nowMillis
            if let text = request.queryParameter("startTime") {
                guard let value = Int64(text) else { return invalid("Invalid value at 'start_time' (TYPE_INT64), \"\(text)\"") }
                start = value
            }
            if let text = request.queryParameter("endTime") {
                guard let value = Int64(text) else { return invalid("Invalid value at 'end_time' (TYPE_INT64), \"\(text)\"") }
                end = value
            }
            guard start >= nowMillis - 30 * 86_400_000 else { return invalid("startTime cannot be older than 30 days.") }
            guard end <= nowMillis else { return invalid("endTime cannot be greater than the current time.") }
            guard start <= end else { return invalid("startTime cannot be after endTime.") }
            var type = 0
            if let text = request.queryParameter("type") {
                guard let value = Int32(text), value == 0 || value == 1 else { return invalid("Invalid value at 'type' (TYPE_INT32), \"\(text)\"") }
                type = Int(value)
            }
            query = VoidedQuery(
                start: start, end: end, type: type, includePartial: request.queryParameter("includeQuantityBasedPartialRefund") == "true", offset: 0)
        }
        let matching = state.withLock { $0.voided }.enumerated().filter { _, record in
            let seen = Self.millis(record.seenAt)
            return seen >= query.start && seen <= query.end && (query.type == 1 || !record.isSubscription)
                && (query.includePartial || record.voidedQuantity == nil)
        }.sorted { ($0.element.seenAt, $0.offset) < ($1.element.seenAt, $1.offset) }.map(\.element)
        let page = matching.dropFirst(query.offset).prefix(pageSize)
        var object: [String: Any] = [:]
        if !page.isEmpty { object["voidedPurchases"] = page.map(Self.voidedJSON) }
        if query.offset + page.count < matching.count {
            var next = query
            next.offset += page.count
            object["tokenPagination"] = ["nextPageToken": next.token]
        }
        return HTTPResponse.fakeJSON(object)
    }

    /// A `VoidedPurchase`: int64 fields as strings, int32 ones as numbers.
    static func voidedJSON(_ record: VoidedRecord) -> [String: Any] {
        var object: [String: Any] = [
            "kind": "androidpublisher#voidedPurchase", "purchaseToken": record.purchaseToken, "orderId": record.orderID,
            "purchaseTimeMillis": String(millis(record.purchaseTime)), "voidedTimeMillis": String(millis(record.voidedTime)),
            "voidedSource": record.source, "voidedReason": record.reason
        ]
        if let quantity = record.voidedQuantity { object["voidedQuantity"] = quantity }
        return object
    }

    static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
}
