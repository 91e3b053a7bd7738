import Crypto
import Foundation
import JSON

extension FakeGooglePlay {
    /// The notification inside a Pub/Sub push of a real-time developer notification.
    public enum RTDN: Sendable {
        /// `subscriptionNotification` (type 4 purchased, 3 canceled, 13 expired, ...).
        case subscription(type: Int, purchaseToken: String, subscriptionID: String)
        /// `oneTimeProductNotification` (type 1 purchased, 2 canceled).
        case oneTimeProduct(type: Int, purchaseToken: String, sku: String)
        /// `voidedPurchaseNotification` (productType 1 subscription, 2 one-time; refundType 1 full, 2 partial).
        case voidedPurchase(purchaseToken: String, orderID: String, productType: Int, refundType: Int)
        /// `testNotification`.
        case test
    }

    /// A Pub/Sub push body shaped like the `rtdn_*.push.json` vectors: `message.data` is the
    /// standard-base64 notification JSON `{version, packageName, eventTimeMillis, <kind>}`.
    /// - Parameter eventTimeAsNumber: writes `eventTimeMillis` as a JSON number instead of a string.
    public static func rtdnPushBody(
        _ notification: RTDN, packageName: String = "com.example.app", messageID: String = "136969346945",
        eventTime: Date = Date(timeIntervalSince1970: 1_700_000_000), eventTimeAsNumber: Bool = false,
        subscription: String = "projects/myproject/subscriptions/mysubscription"
    ) -> [UInt8] {
        let millis = Int64((eventTime.timeIntervalSince1970 * 1000).rounded())
        let kind: (String, JSONValue)
        switch notification {
        case .subscription(let type, let token, let subscriptionID):
            kind = (
                "subscriptionNotification",
                [
                    "version": "1.0", "notificationType": .integer(Int64(type)), "purchaseToken": .string(token),
                    "subscriptionId": .string(subscriptionID)
                ]
            )
        case .oneTimeProduct(let type, let token, let sku):
            kind = (
                "oneTimeProductNotification",
                [
                    "version": "1.0", "notificationType": .integer(Int64(type)), "purchaseToken": .string(token), "sku": .string(sku)
                ]
            )
        case .voidedPurchase(let token, let orderID, let productType, let refundType):
            kind = (
                "voidedPurchaseNotification",
                [
                    "purchaseToken": .string(token), "orderId": .string(orderID), "productType": .integer(Int64(productType)),
                    "refundType": .integer(Int64(refundType))
                ]
            )
        case .test:
            kind = ("testNotification", ["version": "1.0"])
        }
        let data: JSONValue = .object([
            (key: "version", value: "1.0"), (key: "packageName", value: .string(packageName)),
            (key: "eventTimeMillis", value: eventTimeAsNumber ? .integer(millis) : .string(String(millis))),
            (key: kind.0, value: kind.1)
        ])
        let publishTime = FakeGooglePlayCore.rfc3339(eventTime)
        let body: JSONValue = [
            "message": [
                "attributes": .object([]), "data": .string(Base64.encode(data.serialized())), "messageId": .string(messageID),
                "message_id": .string(messageID), "publishTime": .string(publishTime), "publish_time": .string(publishTime)
            ],
            "subscription": .string(subscription)
        ]
        return body.serialized()
    }
}
