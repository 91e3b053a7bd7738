import Crypto
import Foundation
import Integrations
import JSON
import Testing
import TestSupport

/// The fake App Store speaks as Apple does: every object it sends has only keys Apple's published
/// examples have (`shared/vectors/apple/models`), with the same JSON types, and fields that mean
/// what Apple's mean. Apple's examples of the two API answers not in the vectors (StatusResponse,
/// NotificationHistoryResponse) are written out below from Apple's documentation.
@Suite("Fake App Store objects against Apple's published examples")
struct FakeAppStoreShapeTests {
    /// Keys the fake sends that Apple's example lacks, each with why it is right.
    static let documentedExtras: [String: String] = [:]

    /// A JSON value's type as the comparison sees it.
    static func kind(_ value: Any) -> String {
        switch value {
        // Foundation parses JSON true/false into a boolean NSNumber (objCType "c"), numbers into others.
        case let number as NSNumber: String(cString: number.objCType) == "c" ? "bool" : "number"
        case is String: "string"
        case is [Any]: "array"
        case is [String: Any]: "object"
        default: "null"
        }
    }

    static func object(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    static func example(_ name: String) throws -> [String: Any] {
        try object(SharedVectors.bytes("apple/models/\(name)"))
    }

    /// Every key of `sent` is in `example` with the same type (recursing into objects and the
    /// first element of arrays).
    static func expectShape(_ sent: [String: Any], like example: [String: Any], _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for (key, value) in sent {
            guard let expected = example[key] else {
                if documentedExtras["\(what).\(key)"] == nil {
                    Issue.record("\(what).\(key) is not in Apple's example", sourceLocation: sourceLocation)
                }
                continue
            }
            #expect(kind(value) == kind(expected), "\(what).\(key): \(kind(value)) vs Apple's \(kind(expected))", sourceLocation: sourceLocation)
            if let inner = value as? [String: Any], let expectedInner = expected as? [String: Any] {
                expectShape(inner, like: expectedInner, "\(what).\(key)", sourceLocation: sourceLocation)
            }
            if let items = value as? [Any], let expectedItems = expected as? [Any], let expectedFirst = expectedItems.first as? [String: Any] {
                for case let item as [String: Any] in items {
                    expectShape(item, like: expectedFirst, "\(what).\(key)[]", sourceLocation: sourceLocation)
                }
            }
        }
    }

    /// The payload of a compact JWS.
    static func payload(_ jws: String) throws -> [String: Any] { try object(try CompactJWS(parsing: jws).payload) }

    @Test("Transaction, renewal info and notification payloads: Apple's keys and types")
    func signedPayloads() throws {
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        let renewal = FakeAppStoreTransaction(
            transactionID: "2000000000000002", originalTransactionID: "2000000000000001", bundleID: "com.example.app",
            purchaseDate: date, expiresDate: date.addingTimeInterval(30 * 86400), environment: "Production",
            appAccountToken: "7e3fb20b-4cdb-47cc-936d-99d65f608138", revocationDate: date.addingTimeInterval(60), revocationReason: 1,
            signedDate: date.addingTimeInterval(120), offerType: 1, offerDiscountType: "PAY_AS_YOU_GO",
            originalPurchaseDate: date.addingTimeInterval(-30 * 86400))
        let transaction = try Self.object(renewal.payload.serialized())
        Self.expectShape(transaction, like: try Self.example("signedTransaction.json"), "transaction")
        #expect(transaction["transactionReason"] as? String == "RENEWAL", "a later period is a renewal")
        #expect((transaction["originalPurchaseDate"] as? NSNumber)?.int64Value == 1_797_408_000_000)
        #expect((transaction["purchaseDate"] as? NSNumber)?.int64Value == 1_800_000_000_000, "this period's start")

        let info = FakeAppStoreRenewalInfo(
            originalTransactionID: "2000000000000001", autoRenewStatus: 0, autoRenewProductID: "com.example.basic", expirationIntent: 1,
            gracePeriodExpiresDate: date, isInBillingRetryPeriod: true, environment: "Production", signedDate: date)
        Self.expectShape(try Self.object(info.payload.serialized()), like: try Self.example("signedRenewalInfo.json"), "renewalInfo")

        let notification = FakeAppStoreNotification(
            notificationType: "DID_RENEW", subtype: "BILLING_RECOVERY", signedDate: date, environment: "Production", appAppleID: 1234, status: 1)
        let sent = try Self.object(notification.payload(signedTransactionInfo: "signed", signedRenewalInfo: "signed").serialized())
        Self.expectShape(sent, like: try Self.example("signedNotification.json"), "notification")
    }

    @Test("Get All Subscription Statuses and Get Notification History answers: Apple's keys and types, and what the fields mean")
    func apiAnswers() async throws {
        let pki = try await FakeApplePKI.shared()
        let key = try SigningKey.generateES256()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let fake = try FakeAppStoreServer(
            credentials: .init(issuerID: "issuer", keyID: "KEY", bundleID: "com.example.app", publicKey: try key.verificationKey()),
            appAppleID: 1234, clock: { now })
        defer { Task { await fake.stop() } }
        let periods = try fake.addSubscription(
            originalTransactionID: "2000000000000100", bundleID: "com.example.app",
            start: now.addingTimeInterval(-50 * 86400), periods: 2, environment: .production, signer: pki.signer())
        for index in 0..<4 {
            try fake.send(
                FakeAppStoreNotification(
                    notificationType: "DID_RENEW", signedDate: now.addingTimeInterval(Double(index - 10)),
                    environment: "Production", appAppleID: 1234), signer: pki.signer())
        }
        let iat = Int64(now.timeIntervalSince1970)
        let token = try CompactJWS.sign(
            header: ["alg": "ES256", "kid": "KEY", "typ": "JWT"] as JSONValue,
            claims: ["iss": "issuer", "iat": .integer(iat), "exp": .integer(iat + 300), "aud": "appstoreconnect-v1", "bid": "com.example.app"]
                as JSONValue,
            key: key)
        let http = URLSessionHTTPClient(service: "app_store")
        let auth = [(name: "Authorization", value: "Bearer " + token)]

        let statusURL = try #require(URL(string: fake.productionBaseURL.absoluteString + "/inApps/v1/subscriptions/2000000000000100"))
        let status = try Self.object(try await http.send(OutboundRequest(method: "GET", url: statusURL, headers: auth)).body)
        // Apple's StatusResponse (developer.apple.com/documentation/appstoreserverapi/statusresponse; the example of Apple's libraries).
        let appleStatus: [String: Any] = [
            "environment": "Production", "bundleId": "com.example", "appAppleId": 5454545,
            "data": [
                [
                    "subscriptionGroupIdentifier": "sub_group_one",
                    "lastTransactions": [
                        ["status": 1, "originalTransactionId": "3749183", "signedTransactionInfo": "jws", "signedRenewalInfo": "jws"]
                    ]
                ]
            ]
        ]
        Self.expectShape(status, like: appleStatus, "statusResponse")
        let item = try #require(((status["data"] as? [[String: Any]])?.first?["lastTransactions"] as? [[String: Any]])?.first)
        let latest = try Self.payload(try #require(item["signedTransactionInfo"] as? String))
        Self.expectShape(latest, like: try Self.example("signedTransaction.json"), "statusResponse.transaction")
        #expect(latest["transactionId"] as? String == periods[1].transactionID, "the latest period")
        #expect((latest["expiresDate"] as? NSNumber)?.int64Value == Int64(try #require(periods[1].expiresDate).timeIntervalSince1970 * 1000))
        #expect((latest["signedDate"] as? NSNumber)?.int64Value == iat * 1000, "signed when answered")
        let renewal = try Self.payload(try #require(item["signedRenewalInfo"] as? String))
        Self.expectShape(renewal, like: try Self.example("signedRenewalInfo.json"), "statusResponse.renewalInfo")
        #expect(item["status"] as? Int == 1)

        let historyURL = try #require(URL(string: fake.productionBaseURL.absoluteString + "/inApps/v1/notifications/history"))
        let body = JSONValue.object([("startDate", .integer((iat - 3600) * 1000)), ("endDate", .integer(iat * 1000))]).serialized()
        let history = try Self.object(
            try await http.send(
                OutboundRequest(
                    method: "POST", url: historyURL, headers: auth + [(name: "Content-Type", value: "application/json")], body: body)
            ).body)
        // Apple's NotificationHistoryResponse (developer.apple.com/documentation/appstoreserverapi/notificationhistoryresponse).
        let appleHistory: [String: Any] = [
            "paginationToken": "57715481-805a-4283-8499-1c19b5d6b20a", "hasMore": true,
            "notificationHistory": [["sendAttempts": [["attemptDate": 1698148900000, "sendAttemptResult": "SUCCESS"]], "signedPayload": "jws"]]
        ]
        Self.expectShape(history, like: appleHistory, "notificationHistoryResponse")
        let first = try #require((history["notificationHistory"] as? [[String: Any]])?.first)
        let sent = try Self.payload(try #require(first["signedPayload"] as? String))
        Self.expectShape(sent, like: try Self.example("signedNotification.json"), "notificationHistoryResponse.notification")
        #expect(history["hasMore"] as? Bool == true)
    }
}
