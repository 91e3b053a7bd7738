import Foundation
import HTTPCore
import JSON

extension FakeAppStoreServer {
    /// A Send Consumption Information request the fake accepted (`202`) or refused.
    public struct ConsumptionSeen: Sendable, Equatable {
        public var environment: Environment
        public var transactionID: String
        /// The body's members as JSON text values (`"true"`, `"DELIVERED"`), as received.
        public var fields: [String: String]
        public var status: Int
    }

    /// Every Send Consumption Information request, in order.
    public var consumptionRequests: [ConsumptionSeen] { box.state.withLock { $0.consumption } }

    /// The values of Apple's `deliveryStatus`.
    static let deliveryStatuses: Set<String> = [
        "DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM", "UNDELIVERED_SERVER_OUTAGE", "UNDELIVERED_OTHER"
    ]

    /// Send Consumption Information (`PUT /inApps/v2/transactions/consumption/{transactionId}`), checked
    /// as Apple checks the `ConsumptionRequest` body: `customerConsented` must be `true`
    /// (4000035 InvalidCustomerConsentedError), `deliveryStatus` one of Apple's values (4000036),
    /// `sampleContentProvided` a boolean, `consumptionPercentage` 0–100000 milliunits when present,
    /// `refundPreference` `DECLINE`/`GRANT_FULL`/`GRANT_PRORATED` when present; an unknown transaction
    /// 4040010; then `202` with no body.
    static func consumption(_ request: HTTPRequest, transactionID: String, environment: Environment, box: Box) -> HTTPResponse {
        var members: [String: JSONValue]?
        if let parsed = try? JSONValue.parse(request.body), case .object(let list) = parsed {
            members = Dictionary(list.map { ($0.0, $0.1) }, uniquingKeysWith: { first, _ in first })
        }
        var fields: [String: String] = [:]
        for (key, value) in members ?? [:] {
            switch value {
            case .string(let text): fields[key] = text
            default: fields[key] = String(decoding: value.serialized(), as: UTF8.self)
            }
        }
        func refuse(_ code: Int, _ message: String, status: Int = 400) -> HTTPResponse {
            box.state.withLock {
                $0.consumption.append(ConsumptionSeen(environment: environment, transactionID: transactionID, fields: fields, status: status))
            }
            return HTTPResponse.appleError(code: code, message: message, status: status)
        }
        guard let members else { return refuse(4_000_000, "An error that indicates an invalid request.") }
        guard members["customerConsented"] == .bool(true) else {
            return refuse(
                4_000_035, "An error that indicates the customer consented field is invalid or doesn't indicate that the customer consented.")
        }
        guard case .string(let delivery)? = members["deliveryStatus"], deliveryStatuses.contains(delivery) else {
            return refuse(4_000_036, "An error that indicates the value in the delivery status field is invalid.")
        }
        guard case .bool? = members["sampleContentProvided"] else { return refuse(4_000_000, "An error that indicates an invalid request.") }
        if let percentage = members["consumptionPercentage"] {
            guard case .integer(let value) = percentage, (0...100_000).contains(value) else {
                return refuse(4_000_000, "An error that indicates an invalid request.")
            }
        }
        if let preference = members["refundPreference"] {
            guard case .string(let value) = preference, ["DECLINE", "GRANT_FULL", "GRANT_PRORATED"].contains(value) else {
                return refuse(4_000_000, "An error that indicates an invalid request.")
            }
        }
        let known = box.state.withLock { $0.stored[environment]?[transactionID] != nil || $0.transactions[environment]?[transactionID] != nil }
        guard known else { return refuse(4_040_010, "Transaction id not found.", status: 404) }
        box.state.withLock {
            $0.consumption.append(ConsumptionSeen(environment: environment, transactionID: transactionID, fields: fields, status: 202))
        }
        return HTTPResponse(status: HTTPStatus(code: 202))
    }
}
