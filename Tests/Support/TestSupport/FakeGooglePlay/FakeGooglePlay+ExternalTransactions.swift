import Foundation
import HTTPCore
import Synchronization

extension FakeGooglePlay {
    /// One call to the `externaltransactions` endpoints, whatever it answered.
    public struct ExternalTransactionRequest: Sendable {
        /// `POST` or `GET`.
        public var method: String
        /// The `externalTransactionId` of the query (create) or the path (get, refund).
        public var externalTransactionID: String
        /// `refund` for `:refund`, else nil.
        public var action: String?
        /// The request body as sent.
        public var body: [UInt8]
        /// The HTTP status answered.
        public var status: Int
        /// The answer's body.
        public var responseBody: [UInt8]

        /// The request body as a JSON object.
        public var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }
        /// The answer as a JSON object.
        public var responseJSON: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(responseBody))) as? [String: Any] }
    }

    /// A new external transaction token, as the Play Billing Library hands one to the app;
    /// transactions created with it are test purchases when `testPurchase`.
    public func issueExternalTransactionToken(testPurchase: Bool = false) -> String {
        let token = "fake-ext-token-" + UUID().uuidString.lowercased()
        core.external.withLock { $0.tokens[token] = testPurchase }
        return token
    }

    /// Every `externaltransactions` call received, in order.
    public var externalTransactionRequests: [ExternalTransactionRequest] { core.external.withLock { $0.requests } }

    /// The external transaction Google holds as `id`, as `getexternaltransaction` would answer it.
    public func externalTransaction(id: String) -> [String: Any]? {
        guard let record = core.external.withLock({ $0.transactions[id] }) else { return nil }
        let response = FakeGooglePlayCore.externalTransactionJSON(record, packageName: packageName)
        return (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
    }

    /// The ids of every external transaction Google holds, sorted.
    public var externalTransactionIDs: [String] { core.external.withLock { $0.transactions.keys.sorted() } }

    /// Answers the next `statuses.count` external transaction calls with these statuses (429 or
    /// 5xx) and Google's error body, before looking at them.
    public func failExternalTransactions(_ statuses: [Int]) { core.external.withLock { $0.forcedFailures += statuses } }

    /// Carries out the next `count` successful creates or refunds but answers them 500, as when
    /// Google's answer is lost after it kept the change.
    public func failExternalTransactionsAfterAccepting(_ count: Int) { core.external.withLock { $0.failAfterAccepting += count } }

    /// Whether `id` is a valid `externalTransactionId`: 1–63 characters of `a-zA-Z0-9_-`
    /// (androidpublisher.v3.json, `createexternaltransaction`).
    static func isExternalTransactionID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 63
            && id.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            }
    }
}
