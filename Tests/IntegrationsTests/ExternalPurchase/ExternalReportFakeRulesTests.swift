import Crypto
import Foundation
import Integrations
import JSON
import Testing
import TestSupport

/// The fakes refuse what the platforms document they refuse, with the platforms' error shapes
/// (raw requests, since the clients never send such reports).
@Suite("Fakes of the report APIs keep the platforms' rules")
struct ExternalReportFakeRulesTests {
    /// A fake Apple and a function sending a raw body to it with a valid JWT.
    struct Apple {
        let fake: FakeAppleExternalPurchase
        let token: String
        let now: Date

        init() throws {
            let key = try SigningKey.generateES256()
            let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            self.now = now
            fake = try FakeAppleExternalPurchase(
                credentials: .init(issuerID: "issuer", keyID: "KEY", bundleID: "com.example.app", publicKey: try key.verificationKey()),
                clock: { now })
            let iat = Int64(now.timeIntervalSince1970)
            token = try CompactJWS.sign(
                header: ["alg": "ES256", "kid": "KEY", "typ": "JWT"] as JSONValue,
                claims: ["iss": "issuer", "iat": .integer(iat), "exp": .integer(iat + 300), "aud": "appstoreconnect-v1", "bid": "com.example.app"]
                    as JSONValue,
                key: key)
        }

        /// PUTs `report` and returns the status and the answer's `errors` as (code, fieldName).
        func put(_ report: [String: Any]) async throws -> (status: Int, errors: [(code: Int, field: String?)]) {
            let url = try #require(URL(string: fake.productionBaseURL.absoluteString + "/v1/reports"))
            let body = Array(try JSONSerialization.data(withJSONObject: report))
            let response = try await URLSessionHTTPClient(service: "app_store").send(
                OutboundRequest(
                    method: "PUT", url: url, headers: [("Authorization", "Bearer " + token), ("Content-Type", "application/json")], body: body))
            let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
            let errors = (object?["errors"] as? [[String: Any]] ?? []).map { ($0["errorCode"] as? Int ?? -1, $0["fieldName"] as? String) }
            return (response.status, errors)
        }

        func item(_ id: String, _ changes: [String: Any?] = [:]) -> [String: Any] {
            var item: [String: Any] = [
                "lineItemId": id, "creationDate": Int64(now.timeIntervalSince1970 * 1000) - 1000, "eventType": "BUY",
                "productType": "ONE_TIME_BUY", "productIdentifier": "com.example.p", "amountTaxInclusive": 10000, "amountTaxExclusive": 8000,
                "taxAmount": 2000, "netAmountTaxExclusive": 8000, "reportingCurrency": "EUR", "pricingCurrency": "EUR", "taxCountry": "ESP",
                "quantity": 1
            ]
            for (key, value) in changes { item[key] = value }
            return item
        }

        func report(_ items: [[String: Any]]?, status: String = "LINE_ITEM") -> [String: Any] {
            var report: [String: Any] = ["requestIdentifier": UUID().uuidString.lowercased(), "externalPurchaseId": "tok", "status": status]
            if let items { report["lineItems"] = items }
            return report
        }
    }

    @Test(
        "Apple's fake: required and forbidden fields, sums, enums, dates, lengths, each with Apple's errorCode",
        arguments: [
            ("missing field", #"{"taxCountry": null}"#, 4, "taxCountry"),
            ("field of another line item type", #"{"subscriptionEvent": "RENEWAL"}"#, 5, "subscriptionEvent"),
            ("inclusive is not exclusive plus tax", #"{"amountTaxInclusive": 9999}"#, 11, "amountTaxInclusive"),
            ("negative amount", #"{"taxAmount": -1, "amountTaxInclusive": 7999}"#, 15, "taxAmount"),
            ("currency Apple does not report in", #"{"reportingCurrency": "ISK", "pricingCurrency": "ISK"}"#, 7, "reportingCurrency"),
            ("pricing differs without exchange rate", #"{"pricingCurrency": "ISK"}"#, 4, "exchangeRate"),
            ("future creation date", #"{"creationDate": 4000000000000}"#, 6, "creationDate"),
            ("over-long product id", "{\"productIdentifier\": \"\(String(repeating: "p", count: 129))\"}", 19, "productIdentifier")
        ])
    func appleItemRules(_ name: String, changes: String, code: Int, field: String) async throws {
        let apple = try Apple()
        defer { Task { await apple.fake.stop() } }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(changes.utf8)) as? [String: Any])
        let answer = try await apple.put(apple.report([apple.item("i_1", object.mapValues { $0 is NSNull ? nil : $0 })]))
        #expect(answer.status == 400, "\(name)")
        #expect(answer.errors.contains { $0.code == code && $0.field == field }, "\(name): \(answer.errors)")
        #expect(apple.fake.acceptedReports().isEmpty)
    }

    @Test("Apple's fake: statuses, subscription rules, refunds and personal data")
    func appleReportRules() async throws {
        let apple = try Apple()
        defer { Task { await apple.fake.stop() } }
        #expect(try await apple.put(apple.report(nil)).errors.map(\.code) == [9])
        #expect(try await apple.put(apple.report([apple.item("i_1")], status: "NO_LINE_ITEM")).errors.map(\.code) == [10])
        let start: [String: Any?] = [
            "productType": "SUBSCRIPTION", "subscriptionEvent": "SUBSCRIPTION_START", "subscriptionStartDate": 1, "subscriptionEndDate": 2,
            "subscriptionDaysOfPaidService": 5
        ]
        #expect(try await apple.put(apple.report([apple.item("s_1", start)])).errors.map(\.code) == [34])
        var valid = start
        valid["subscriptionDaysOfPaidService"] = 0
        #expect(try await apple.put(apple.report([apple.item("s_1", valid)])).status == 200)
        var renewal = valid
        renewal["subscriptionEvent"] = "RENEWAL"
        renewal["referenceLineItemId"] = "s_1"
        #expect(try await apple.put(apple.report([apple.item("s_1_r1", renewal)])).status == 200)
        var badRenewal = renewal
        badRenewal["referenceLineItemId"] = "s_1_r1"
        #expect(try await apple.put(apple.report([apple.item("s_1_r2", badRenewal)])).errors.map(\.code) == [14])
        let refund: [String: Any?] = [
            "eventType": "REFUND", "productType": nil, "productIdentifier": nil, "quantity": nil, "referenceLineItemId": "s_1",
            "amountTaxExclusive": 3000, "taxAmount": 750, "amountTaxInclusive": 3750, "netAmountTaxExclusive": 5000
        ]
        var wrongNet = refund
        wrongNet["netAmountTaxExclusive"] = 8000
        #expect(try await apple.put(apple.report([apple.item("s_1_rf", wrongNet)])).errors.map(\.code) == [12])
        var withProduct = refund
        withProduct["productIdentifier"] = "com.example.p"
        #expect(try await apple.put(apple.report([apple.item("s_1_rf", withProduct)])).errors.map(\.code) == [5])
        #expect(try await apple.put(apple.report([apple.item("s_1_rf", refund)])).status == 200)
        #expect(try await apple.put(apple.report([apple.item("buyer@example.com")])).errors.map(\.code) == [0])
        #expect(apple.fake.personalDataFindings == ["buyer@example.com"])
        #expect(try await apple.put(apple.report([apple.item("s_1")])).errors.map(\.code) == [1])
    }

    @Test("Google's fake: create rules of the ExternalTransaction schema, with Google's error body")
    func googleRules() async throws {
        let play = try PlayHarness()
        defer { Task { await play.stop() } }
        let bearer = try await play.tokens.accessToken()
        let token = play.fake.issueExternalTransactionToken()
        func create(_ id: String, _ body: [String: Any?]) async throws -> (status: Int, error: [String: Any]?) {
            let base = play.fake.baseURL + "/androidpublisher/v3/applications/\(play.fake.packageName)/externalTransactions"
            let url = try #require(URL(string: base + (id.isEmpty ? "" : "?externalTransactionId=\(id)")))
            let response = try await URLSessionHTTPClient(service: "play_store").send(
                OutboundRequest(
                    method: "POST", url: url, headers: [("Authorization", "Bearer " + bearer), ("Content-Type", "application/json")],
                    body: Array(try JSONSerialization.data(withJSONObject: body.compactMapValues { $0 }))))
            return (response.status, (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["error"] as? [String: Any])
        }
        let good: [String: Any?] = [
            "originalPreTaxAmount": ["priceMicros": "1000000", "currency": "USD"], "originalTaxAmount": ["priceMicros": "0", "currency": "USD"],
            "transactionTime": "2026-11-26T10:00:00.000Z", "userTaxAddress": ["regionCode": "US"],
            "oneTimeTransaction": ["externalTransactionToken": token]
        ]
        let cases: [(String, String, [String: Any?])] = [
            ("no id", "", [:]),
            ("email id", "a@b.c", [:]),
            ("64-character id", String(repeating: "a", count: 64), [:]),
            ("micros as a number", "x1", ["originalPreTaxAmount": ["priceMicros": 1_000_000, "currency": "USD"]]),
            ("no transactionTime", "x2", ["transactionTime": nil]),
            ("alpha-3 region", "x3", ["userTaxAddress": ["regionCode": "USA"]]),
            ("India without state", "x4", ["userTaxAddress": ["regionCode": "IN"]]),
            ("both transaction kinds", "x5", ["recurringTransaction": ["initialExternalTransactionId": "x"]]),
            ("unknown token", "x6", ["oneTimeTransaction": ["externalTransactionToken": "forged"]]),
            ("unknown field", "x7", ["userEmail": "a@b.c"]),
            (
                "two programmes", "x8",
                [
                    "externalOfferDetails": [String: Any](), "externalContentLinkDetails": ["linkType": "LINK_TO_DIGITAL_CONTENT_OFFER"]
                ]
            )
        ]
        for (name, id, changes) in cases {
            let answer = try await create(id, good.merging(changes) { $1 })
            #expect(answer.status == 400, "\(name)")
            #expect(answer.error?["status"] as? String == "INVALID_ARGUMENT", "\(name)")
            #expect(answer.error?["code"] as? Int == 400 && answer.error?["message"] is String, "\(name)")
        }
        #expect(try await create("ok_1", good).status == 200)
        let again = try await create("ok_1", good)
        #expect(again.status == 409)
        #expect(again.error?["status"] as? String == "ALREADY_EXISTS")
        #expect(play.fake.externalTransactionIDs == ["ok_1"])
    }
}
