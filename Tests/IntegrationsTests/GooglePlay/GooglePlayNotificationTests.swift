import Foundation
import Integrations
import Testing
import TestSupport

@Suite("Google Play real-time developer notifications")
struct GooglePlayNotificationTests {
    @Test(
        "Every RTDN vector decodes to its case",
        arguments: [
            "rtdn_subscription_purchased", "rtdn_subscription_canceled", "rtdn_one_time_purchased", "rtdn_test", "rtdn_voided"
        ])
    func vectors(name: String) throws {
        let notification = try GooglePlayNotification(pushBody: PlayVectors.bytes("\(name).push.json"))
        #expect(notification.packageName == "com.example.app")
        #expect(notification.version == "1.0")
        #expect(notification.publishTime == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(notification.pubSubSubscription == "projects/myproject/subscriptions/mysubscription")
        let subscriptionToken = "test-purchase-token.AO-J1Oy_example"
        switch name {
        case "rtdn_subscription_purchased":
            #expect(notification.messageID == "136969346945")
            #expect(notification.eventTime == Date(timeIntervalSince1970: 1_700_000_000))
            #expect(
                notification.event
                    == .subscription(.init(version: "1.0", type: .purchased, purchaseToken: subscriptionToken, subscriptionID: "pro_monthly")))
        case "rtdn_subscription_canceled":
            #expect(notification.messageID == "136969346946")
            #expect(notification.eventTime == Date(timeIntervalSince1970: 1_700_000_100))
            #expect(
                notification.event
                    == .subscription(.init(version: "1.0", type: .canceled, purchaseToken: subscriptionToken, subscriptionID: "pro_monthly")))
        case "rtdn_one_time_purchased":
            #expect(notification.messageID == "136969346948")
            #expect(notification.event == .oneTimeProduct(.init(version: "1.0", type: .purchased, purchaseToken: "otp-token-123", sku: "coins_100")))
            #expect(notification.purchaseToken == "otp-token-123")
        case "rtdn_test":
            #expect(notification.messageID == "136969346947")
            #expect(notification.event == .test(version: "1.0"))
            #expect(notification.purchaseToken == nil)
        default:
            #expect(notification.messageID == "136969346949")
            #expect(notification.eventTime == Date(timeIntervalSince1970: 1_700_000_200))
            guard case .voidedPurchase(let voided) = notification.event else {
                Issue.record("expected a voided purchase, got \(notification.event)")
                return
            }
            #expect(voided.purchaseToken == subscriptionToken)
            #expect(voided.orderID == "GPA.1234-5678-9012-34567")
            #expect(voided.isSubscription)
            #expect(voided.refundType == 1)
        }
    }

    @Test("The fake's push bodies decode, with eventTimeMillis as a number, and unknown types are kept")
    func fakeBodies() throws {
        let eventTime = Date(timeIntervalSince1970: 1_750_000_000.5)
        let numeric = try GooglePlayNotification(
            pushBody: FakeGooglePlay.rtdnPushBody(
                .subscription(type: 20, purchaseToken: "t.1", subscriptionID: "pro"), messageID: "m-1", eventTime: eventTime, eventTimeAsNumber: true)
        )
        #expect(numeric.eventTime == eventTime)
        #expect(numeric.messageID == "m-1")
        guard case .subscription(let subscription) = numeric.event else {
            Issue.record("expected a subscription notification")
            return
        }
        #expect(subscription.type == .pendingPurchaseCanceled)
        #expect(subscription.type.name == "SUBSCRIPTION_PENDING_PURCHASE_CANCELED")
        let unknown = try GooglePlayNotification(
            pushBody: FakeGooglePlay.rtdnPushBody(
                .subscription(type: 99, purchaseToken: "t.2", subscriptionID: "pro")))
        guard case .subscription(let future) = unknown.event else {
            Issue.record("expected a subscription notification")
            return
        }
        #expect(future.type == .unknown(99))
        #expect(future.type.rawValue == 99)
        let voided = try GooglePlayNotification(
            pushBody: FakeGooglePlay.rtdnPushBody(
                .voidedPurchase(purchaseToken: "t.3", orderID: "GPA.1", productType: 2, refundType: 2)))
        #expect(voided.event == .voidedPurchase(.init(purchaseToken: "t.3", orderID: "GPA.1", productType: 2, refundType: 2)))
        let vector = try PlayVectors.bytes("rtdn_subscription_purchased.push.json")
        let rebuilt = FakeGooglePlay.rtdnPushBody(
            .subscription(type: 4, purchaseToken: "test-purchase-token.AO-J1Oy_example", subscriptionID: "pro_monthly"))
        #expect(try GooglePlayNotification(pushBody: rebuilt) == GooglePlayNotification(pushBody: vector))
    }

    @Test("Subscription notification types keep Google's numbers and names")
    func typeTable() {
        let names = [
            1: "RECOVERED", 2: "RENEWED", 3: "CANCELED", 4: "PURCHASED", 5: "ON_HOLD", 6: "IN_GRACE_PERIOD", 7: "RESTARTED",
            9: "DEFERRED", 10: "PAUSED", 11: "PAUSE_SCHEDULE_CHANGED", 12: "REVOKED", 13: "EXPIRED", 20: "PENDING_PURCHASE_CANCELED"
        ]
        for (number, name) in names {
            let type = GooglePlaySubscriptionNotificationType(rawValue: number)
            #expect(type.rawValue == number)
            #expect(type.name == "SUBSCRIPTION_" + name)
        }
        #expect(GooglePlaySubscriptionNotificationType(rawValue: 14) == .unknown(14))
        #expect(GooglePlayOneTimeProductNotificationType(rawValue: 2) == .canceled)
        #expect(GooglePlayOneTimeProductNotificationType(rawValue: 7).rawValue == 7)
    }

    static func push(data: String, extra: String = "") -> String {
        #"{"message":{"data":"\#(data)","messageId":"1"\#(extra)},"subscription":"s"}"#
    }

    static func encoded(_ json: String) -> String { Data(json.utf8).base64EncodedString() }

    @Test(
        "Malformed push bodies are typed errors",
        arguments: [
            "not json", "{}", #"{"message":"x"}"#, push(data: "***not base64***"), push(data: encoded("not json")),
            push(data: encoded("[1,2]")), push(data: encoded(#"{"eventTimeMillis":"1","testNotification":{}}"#)),
            push(data: encoded(#"{"packageName":"a","testNotification":{}}"#)),
            push(data: encoded(#"{"packageName":"a","eventTimeMillis":"soon","testNotification":{}}"#)),
            push(data: encoded(#"{"packageName":"a","eventTimeMillis":"1","subscriptionNotification":{"notificationType":4}}"#)),
            push(data: encoded(#"{"packageName":"a","eventTimeMillis":"1","subscriptionNotification":{"purchaseToken":"t"}}"#)),
            push(data: encoded(#"{"packageName":"a","eventTimeMillis":"1","oneTimeProductNotification":"x"}"#)),
            #"{"message":{"messageId":"1"}}"#, #"{"message":{"data":"e30="}}"#
        ])
    func malformed(body: String) async {
        let error = await expectPlayError(.malformedNotification) { _ = try GooglePlayNotification(pushBody: Array(body.utf8)) }
        #expect(error?.isConfigurationError == false)
    }

    @Test("A notification of a kind not known yet decodes as unsupported")
    func unsupported() throws {
        let body = Self.push(data: Self.encoded(#"{"version":"1.0","packageName":"a","eventTimeMillis":1700000000000,"futureNotification":{}}"#))
        let notification = try GooglePlayNotification(pushBody: Array(body.utf8))
        #expect(notification.event == .unsupported)
        #expect(notification.eventTime == Date(timeIntervalSince1970: 1_700_000_000))
    }

    @Test("Integers arrive as JSON numbers or decimal strings alike; a boolean, a fraction or a number past 64 bits is no integer")
    func integerKinds() async throws {
        func notification(_ members: String) throws -> GooglePlayNotification {
            try GooglePlayNotification(pushBody: Array(Self.push(data: Self.encoded(#"{"packageName":"a",\#(members)}"#)).utf8))
        }
        let asStrings = try notification(
            #""eventTimeMillis":"1700000000000","subscriptionNotification":{"notificationType":"4","purchaseToken":"t"}"#)
        let asNumbers = try notification(#""eventTimeMillis":1700000000000,"subscriptionNotification":{"notificationType":4,"purchaseToken":"t"}"#)
        #expect(asStrings.eventTime == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(asStrings == asNumbers)
        #expect(asNumbers.event == .subscription(.init(version: nil, type: .purchased, purchaseToken: "t", subscriptionID: nil)))
        for members in [
            #""eventTimeMillis":true,"testNotification":{}"#, #""eventTimeMillis":1700000000000.5,"testNotification":{}"#,
            #""eventTimeMillis":1e20,"testNotification":{}"#, #""eventTimeMillis":"99999999999999999999","testNotification":{}"#,
            #""eventTimeMillis":"1","subscriptionNotification":{"notificationType":true,"purchaseToken":"t"}"#,
            #""eventTimeMillis":"1","subscriptionNotification":{"notificationType":4.5,"purchaseToken":"t"}"#
        ] {
            let error = await expectPlayError(.malformedNotification) { _ = try notification(members) }
            #expect(error != nil, "\(members)")
        }
    }
}
