import Crypto
import Foundation
import JSON

/// A Google Play real-time developer notification, decoded from the Pub/Sub push body
/// `{"message": {"data": base64, "messageId", "publishTime", "attributes"}, "subscription"}`.
///
/// The notification is only a hint: re-read the purchase from the API, then update. Dedupe
/// on `messageID`.
public struct GooglePlayNotification: Sendable, Equatable {
    /// A subscription changed (`subscriptionNotification`).
    public struct Subscription: Sendable, Equatable {
        public var version: String?
        public var type: GooglePlaySubscriptionNotificationType
        public var purchaseToken: String
        /// The subscription product id (Google may omit it for purchases with add-ons).
        public var subscriptionID: String?

        /// Creates the notification's content.
        public init(version: String?, type: GooglePlaySubscriptionNotificationType, purchaseToken: String, subscriptionID: String?) {
            self.version = version
            self.type = type
            self.purchaseToken = purchaseToken
            self.subscriptionID = subscriptionID
        }
    }

    /// A one-time product was purchased or canceled (`oneTimeProductNotification`).
    public struct OneTimeProduct: Sendable, Equatable {
        public var version: String?
        public var type: GooglePlayOneTimeProductNotificationType
        public var purchaseToken: String
        public var sku: String?

        /// Creates the notification's content.
        public init(version: String?, type: GooglePlayOneTimeProductNotificationType, purchaseToken: String, sku: String?) {
            self.version = version
            self.type = type
            self.purchaseToken = purchaseToken
            self.sku = sku
        }
    }

    /// A purchase was voided: refunded, charged back or revoked (`voidedPurchaseNotification`).
    public struct VoidedPurchase: Sendable, Equatable {
        public var purchaseToken: String
        public var orderID: String?
        /// 1 subscription, 2 one-time product.
        public var productType: Int?
        /// 1 full refund, 2 quantity-based partial refund.
        public var refundType: Int?

        /// Creates the notification's content.
        public init(purchaseToken: String, orderID: String?, productType: Int?, refundType: Int?) {
            self.purchaseToken = purchaseToken
            self.orderID = orderID
            self.productType = productType
            self.refundType = refundType
        }

        /// Whether a subscription was voided (`productType` 1).
        public var isSubscription: Bool { productType == 1 }
    }

    /// What the notification is about.
    public enum Event: Sendable, Equatable {
        case subscription(Subscription)
        case oneTimeProduct(OneTimeProduct)
        case voidedPurchase(VoidedPurchase)
        /// A test notification sent from Play Console.
        case test(version: String?)
        /// A kind this code does not know: acknowledge it and do nothing.
        case unsupported
    }

    /// Pub/Sub's `messageId`: the key for deduplication.
    public let messageID: String
    /// Pub/Sub's `publishTime`, when readable.
    public let publishTime: Date?
    /// The Pub/Sub subscription that pushed it (`projects/.../subscriptions/...`).
    public let pubSubSubscription: String?
    /// The notification's `version`.
    public let version: String?
    /// The app; compare with the configured package name.
    public let packageName: String
    /// `eventTimeMillis`.
    public let eventTime: Date
    /// What happened.
    public let event: Event

    /// The purchase token the event concerns (nil for tests and unsupported kinds).
    public var purchaseToken: String? {
        switch event {
        case .subscription(let value): value.purchaseToken
        case .oneTimeProduct(let value): value.purchaseToken
        case .voidedPurchase(let value): value.purchaseToken
        case .test, .unsupported: nil
        }
    }

    /// Decodes a Pub/Sub push body.
    /// - Throws: `GooglePlayError.malformedNotification` saying what is wrong (no `message`,
    ///   `data` not base64 or not JSON, missing `packageName`, `eventTimeMillis`, token or type).
    public init(pushBody: [UInt8]) throws {
        func bad(_ why: String) -> GooglePlayError { GooglePlayError(.malformedNotification, "Pub/Sub push body \(why)") }
        guard let body = GoogleJSON.object(pushBody) else { throw bad("is not a JSON object") }
        guard let message = body["message"]?.objectValue else { throw bad("has no \"message\" object") }
        guard let messageID = message["messageId"]?.nonEmptyString ?? message["message_id"]?.nonEmptyString else {
            throw bad("message has no messageId")
        }
        guard let encoded = message["data"]?.stringValue, !encoded.isEmpty else { throw bad("message has no data") }
        guard let decoded = Self.decodeBase64(encoded) else { throw bad("message data is not base64") }
        guard let data = GoogleJSON.object(decoded) else { throw bad("message data is not a JSON object") }
        guard let packageName = data["packageName"]?.nonEmptyString else { throw bad("notification has no packageName") }
        guard let eventTime = GoogleTimestamp.fromMilliseconds(data["eventTimeMillis"]) else {
            throw bad("notification has no readable eventTimeMillis")
        }
        self.messageID = messageID
        self.publishTime = (message["publishTime"] ?? message["publish_time"])?.stringValue.flatMap(GoogleTimestamp.parse)
        self.pubSubSubscription = body["subscription"]?.nonEmptyString
        self.version = data["version"]?.nonEmptyString
        self.packageName = packageName
        self.eventTime = eventTime
        self.event = try Self.event(in: data, bad: bad)
    }

    private static func event(in data: JSONValue, bad: (String) -> GooglePlayError) throws -> Event {
        func token(_ object: JSONValue, _ kind: String) throws -> String {
            guard let token = object["purchaseToken"]?.nonEmptyString else { throw bad("\(kind) has no purchaseToken") }
            return token
        }
        func type(_ object: JSONValue, _ kind: String) throws -> Int {
            guard let type = object["notificationType"]?.intOrDecimal else { throw bad("\(kind) has no numeric notificationType") }
            return type
        }
        if let object = data["subscriptionNotification"]?.objectValue {
            return .subscription(
                Subscription(
                    version: object["version"]?.nonEmptyString,
                    type: GooglePlaySubscriptionNotificationType(rawValue: try type(object, "subscriptionNotification")),
                    purchaseToken: try token(object, "subscriptionNotification"),
                    subscriptionID: object["subscriptionId"]?.nonEmptyString))
        }
        if let object = data["oneTimeProductNotification"]?.objectValue {
            return .oneTimeProduct(
                OneTimeProduct(
                    version: object["version"]?.nonEmptyString,
                    type: GooglePlayOneTimeProductNotificationType(rawValue: try type(object, "oneTimeProductNotification")),
                    purchaseToken: try token(object, "oneTimeProductNotification"), sku: object["sku"]?.nonEmptyString))
        }
        if let object = data["voidedPurchaseNotification"]?.objectValue {
            return .voidedPurchase(
                VoidedPurchase(
                    purchaseToken: try token(object, "voidedPurchaseNotification"), orderID: object["orderId"]?.nonEmptyString,
                    productType: object["productType"]?.intOrDecimal, refundType: object["refundType"]?.intOrDecimal))
        }
        if let object = data["testNotification"]?.objectValue {
            return .test(version: object["version"]?.nonEmptyString)
        }
        for key in ["subscriptionNotification", "oneTimeProductNotification", "voidedPurchaseNotification", "testNotification"]
        where data[key] != nil {
            throw bad("\(key) is not an object")
        }
        return .unsupported
    }

    /// Standard base64 as Pub/Sub writes it; padding may be missing.
    private static func decodeBase64(_ text: String) -> [UInt8]? {
        var padded = text
        let remainder = padded.utf8.count % 4
        if remainder == 2 { padded += "==" } else if remainder == 3 { padded += "=" }
        return try? Base64.decode(padded)
    }
}
