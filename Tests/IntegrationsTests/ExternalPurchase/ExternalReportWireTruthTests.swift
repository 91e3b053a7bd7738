import Foundation
import Integrations
import Testing
import TestSupport

/// The bodies the clients send and the answers the fakes give, held against the platforms'
/// own descriptions: androidpublisher.v3.json for Google, the field lists of Apple's pages
/// (written out below) for Apple.
@Suite("External reports match the platforms' documented shapes")
struct ExternalReportWireTruthTests {
    // MARK: Google

    static func discovery() throws -> (schema: DiscoverySchema, schemas: [String: [String: Any]]) {
        let document = try PlayVectors.json("androidpublisher.v3.json")
        let schema = try DiscoverySchema(document: document)
        return (schema, schema.schemas)
    }

    /// Properties whose description begins "Required." that `value` lacks, and (for requests)
    /// read-only properties it carries, recursively through `$ref`s.
    static func requiredProblems(_ value: Any, schema name: String, schemas: [String: [String: Any]], request: Bool, path: String = "$") -> [String] {
        guard let schema = schemas[name], let object = value as? [String: Any] else { return [] }
        let properties = schema["properties"] as? [String: [String: Any]] ?? [:]
        var problems: [String] = []
        for (key, property) in properties.sorted(by: { $0.key < $1.key }) {
            let description = property["description"] as? String ?? ""
            if object[key] == nil, description.hasPrefix("Required.") { problems.append("\(path).\(key): required, missing") }
            if request, object[key] != nil, property["readOnly"] as? Bool == true { problems.append("\(path).\(key): output only, sent") }
            if !request, object[key] != nil, description.hasPrefix("Input only.") { problems.append("\(path).\(key): input only, answered") }
            if let child = object[key], let ref = property["$ref"] as? String {
                problems += requiredProblems(child, schema: ref, schemas: schemas, request: request, path: "\(path).\(key)")
            }
        }
        return problems
    }

    @Test("The checks catch a body that breaks the schema (they can fail)")
    func checkerFails() throws {
        let (schema, schemas) = try Self.discovery()
        let bad: [String: Any] = [
            "originalPreTaxAmount": ["priceMicros": 1_000_000, "currency": "EUR"], "transactionTime": "yesterday",
            "userTaxAddress": ["administrativeArea": "X"], "packageName": "com.example.app"
        ]
        let problems =
            schema.problems(bad, against: "ExternalTransaction")
            + Self.requiredProblems(bad, schema: "ExternalTransaction", schemas: schemas, request: true)
        #expect(problems.contains { $0.contains("priceMicros") })
        #expect(problems.contains { $0.contains("transactionTime") })
        #expect(problems.contains { $0.contains("originalTaxAmount: required") })
        #expect(problems.contains { $0.contains("regionCode: required") })
        #expect(problems.contains { $0.contains("packageName: output only") })
    }

    @Test("Every create and refund body the client sent, and every answer of the fake, fits androidpublisher.v3.json")
    func googleBodies() async throws {
        let (schema, schemas) = try Self.discovery()
        let play = try PlayHarness()
        defer { Task { await play.stop() } }
        let client = GooglePlayExternalTransactionsClient(play: play.client)
        let now = play.clock.now()
        let token = { try GooglePlayExternalTransactionToken(play.fake.issueExternalTransactionToken()) }
        let program = try GooglePlayExternalProgram(
            transactionProgramCode: 7, details: .externalContentLink(linkType: .digitalContentOffer, installedAppPackage: nil, appCategory: nil))
        _ = try await client.create(Events.oneTime("g_1", at: now - 900, preTax: 1999, tax: 380, country: "USA"), token: token(), program: program)
        _ = try await client.create(Events.start("g_2", at: now - 800, country: "IND").withArea("DELHI"), token: token())
        _ = try await client.create(Events.renewal("g_2_r1", of: "g_2", at: now - 700, country: "IND").withArea("DELHI"), token: nil)
        _ = try await client.refund(Events.refund("g_1_rf1", of: "g_1", at: now - 600, preTax: 999, tax: 190, remaining: 1000, country: "USA"))
        _ = try await client.refund(Events.refund("g_1_rf2", of: "g_1", at: now - 500, preTax: 1000, tax: 190, remaining: 0, country: "USA"))
        _ = try await client.transaction(id: Events.id("g_2_r1"))
        let requests = play.fake.externalTransactionRequests
        #expect(requests.count == 6)
        #expect(requests.allSatisfy { $0.status == 200 })
        for request in requests {
            let requestSchema = request.action == "refund" ? "RefundExternalTransactionRequest" : "ExternalTransaction"
            if request.method == "POST" {
                let body = try #require(request.json)
                #expect(schema.problems(body, against: requestSchema) == [], "\(request.externalTransactionID) request")
                #expect(Self.requiredProblems(body, schema: requestSchema, schemas: schemas, request: true) == [], "\(request.externalTransactionID)")
            }
            let answer = try #require(request.responseJSON)
            #expect(schema.problems(answer, against: "ExternalTransaction") == [], "\(request.externalTransactionID) answer")
            #expect(Self.requiredProblems(answer, schema: "ExternalTransaction", schemas: schemas, request: false) == [])
        }
        // The query parameter: 1–63 characters of a-zA-Z0-9_- (the method's description).
        let parameters = try #require(
            (((try PlayVectors.json("androidpublisher.v3.json")["resources"] as? [String: Any])?["externaltransactions"] as? [String: Any])?[
                "methods"]
                as? [String: Any])?["createexternaltransaction"] as? [String: Any])
        let description = try #require(
            ((parameters["parameters"] as? [String: Any])?["externalTransactionId"] as? [String: Any])?["description"] as? String)
        #expect(description.contains("1-63 characters") && description.contains("/a-zA-Z0-9_-/"))
        #expect(ExternalReportID.maximumLength == 63)
    }

    // MARK: Apple

    /// https://developer.apple.com/documentation/externalpurchaseserverapi/externalpurchasereport
    static let reportRequired: Set<String> = ["requestIdentifier", "externalPurchaseId", "status"]
    static let reportOptional: Set<String> = ["lineItems"]
    /// Fields of every line item type (required on each page):
    /// https://developer.apple.com/documentation/externalpurchaseserverapi/onetimebuylineitem
    /// https://developer.apple.com/documentation/externalpurchaseserverapi/subscriptionbuylineitem
    /// https://developer.apple.com/documentation/externalpurchaseserverapi/refundlineitem
    static let lineItemCommon: Set<String> = [
        "lineItemId", "creationDate", "pricingCurrency", "reportingCurrency", "amountTaxExclusive", "amountTaxInclusive",
        "netAmountTaxExclusive", "taxAmount", "taxCountry", "eventType"
    ]
    /// Optional on every page: `restatement`, `erroneouslySubmitted` (default false), `exchangeRate`.
    static let lineItemOptional: Set<String> = ["restatement", "erroneouslySubmitted", "exchangeRate"]
    static let oneTimeRequired = lineItemCommon.union(["productIdentifier", "quantity", "productType"])
    static let subscriptionRequired = oneTimeRequired.union([
        "subscriptionEvent", "subscriptionStartDate", "subscriptionEndDate", "subscriptionDaysOfPaidService"
    ])
    /// `referenceLineItemId` is optional on SubscriptionBuyLineItem (set for renewals), required on RefundLineItem.
    static let subscriptionOptional: Set<String> = ["referenceLineItemId"]
    static let refundRequired = lineItemCommon.union(["referenceLineItemId"])
    /// int64/int32 fields (https://developer.apple.com/documentation/externalpurchaseserverapi/lineitems); the rest are strings
    /// but for the two booleans and `exchangeRate` (a double).
    static let integerFields: Set<String> = [
        "creationDate", "quantity", "amountTaxExclusive", "amountTaxInclusive", "netAmountTaxExclusive", "taxAmount",
        "subscriptionStartDate", "subscriptionEndDate", "subscriptionDaysOfPaidService"
    ]

    /// Every way `item` departs from its page's field list and types.
    static func lineItemProblems(_ item: [String: Any]) -> [String] {
        let (required, optional): (Set<String>, Set<String>)
        switch (item["eventType"] as? String, item["productType"] as? String) {
        case ("BUY", "ONE_TIME_BUY"): (required, optional) = (oneTimeRequired, lineItemOptional)
        case ("BUY", "SUBSCRIPTION"): (required, optional) = (subscriptionRequired, lineItemOptional.union(subscriptionOptional))
        case ("REFUND", nil): (required, optional) = (refundRequired, lineItemOptional)
        default: return ["eventType/productType \(item["eventType"] ?? "-")/\(item["productType"] ?? "-") is no line item type"]
        }
        let id = item["lineItemId"] as? String ?? "?"
        var problems = required.subtracting(item.keys).sorted().map { "\(id).\($0): required, missing" }
        problems += Set(item.keys).subtracting(required).subtracting(optional).sorted().map { "\(id).\($0): not on the page" }
        for (key, value) in item {
            let isInteger =
                (value as? NSNumber).map { !["c", "B"].contains(String(cString: $0.objCType)) && $0.doubleValue.rounded() == $0.doubleValue } ?? false
            if integerFields.contains(key), !isInteger || value is String { problems.append("\(id).\(key): not an integer") }
            if !integerFields.contains(key), !lineItemOptional.contains(key), !(value is String) { problems.append("\(id).\(key): not a string") }
        }
        if let country = item["taxCountry"] as? String, country.count != 3 { problems.append("\(id).taxCountry: not alpha-3") }
        return problems
    }

    static func reportProblems(_ report: [String: Any]) -> [String] {
        var problems = reportRequired.subtracting(report.keys).sorted().map { "\($0): required, missing" }
        problems += Set(report.keys).subtracting(reportRequired).subtracting(reportOptional).sorted().map { "\($0): not on the page" }
        for item in report["lineItems"] as? [[String: Any]] ?? [] { problems += lineItemProblems(item) }
        return problems
    }

    @Test("The Apple checks catch a line item that breaks its page (they can fail)")
    func appleCheckerFails() {
        let problems = Self.reportProblems([
            "requestIdentifier": "x", "status": "LINE_ITEM", "extra": 1,
            "lineItems": [["lineItemId": "a", "eventType": "SELL", "creationDate": "1"]]
        ])
        #expect(problems.contains("externalPurchaseId: required, missing"))
        #expect(problems.contains("extra: not on the page"))
        #expect(problems.contains { $0.contains("is no line item type") })
        #expect(
            Self.lineItemProblems(["lineItemId": "b", "eventType": "REFUND", "creationDate": "1", "quantity": 1]).contains(
                "b.creationDate: not an integer"))
        #expect(Self.lineItemProblems(["lineItemId": "b", "eventType": "REFUND", "quantity": 1]).contains("b.quantity: not on the page"))
    }

    @Test("Every report body the client sent, and the fake's read-back, has exactly the fields of Apple's pages, in milli-units")
    func appleBodies() async throws {
        let harness = try await AppleReportHarness()
        defer { Task { await harness.stop() } }
        let start = harness.now - 40 * Events.day
        let id = UUID()
        let reports = [
            try ExternalPurchaseReport.lineItems(
                requestIdentifier: id, externalPurchaseID: "tok-1",
                events: [
                    Events.oneTime("a_1", at: start, preTax: 299, tax: 57, currency: "JPY", country: "JPN"),
                    Events.start("a_2", at: start),
                    Events.renewal("a_2_r1", of: "a_2", at: start + 30 * Events.day)
                ]),
            try ExternalPurchaseReport.lineItems(
                requestIdentifier: UUID(), externalPurchaseID: "tok-1",
                events: [
                    Events.refund("a_1_rf", of: "a_1", at: harness.now - 1, preTax: 299, tax: 57, remaining: 0)
                ].map { try $0.inCurrency("JPY", country: "JPN") }),
            try ExternalPurchaseReport.noLineItem(requestIdentifier: UUID(), externalPurchaseID: "tok-2")
        ]
        for report in reports { #expect(try await harness.client.send(report) == .accepted) }
        let sent = harness.fake.received.compactMap(\.json)
        #expect(sent.count == 3)
        for report in sent { #expect(Self.reportProblems(report) == []) }
        let items = sent.flatMap { $0["lineItems"] as? [[String: Any]] ?? [] }
        // ¥299 is 299,000 milli-units (JPY has no decimals); €8.00 is 8,000.
        #expect(items.first?["amountTaxExclusive"] as? Int == 299_000)
        #expect(items.dropFirst().first?["amountTaxExclusive"] as? Int == 8000)
        let stored = try #require(try await harness.client.retrieve(requestIdentifier: id, sandbox: false))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(stored.json)) as? [String: Any])
        #expect(Self.reportProblems(object) == [])
        #expect(harness.fake.personalDataFindings.isEmpty)
    }
}

extension ExternalPurchaseEvent {
    /// The same event with a tax administrative area.
    func withArea(_ area: String) throws -> ExternalPurchaseEvent {
        try ExternalPurchaseEvent(
            id: id, productID: productID, kind: kind, time: time, amount: amount, taxCountry: taxCountry, taxAdministrativeArea: area)
    }

    /// The same event in another currency and tax country.
    func inCurrency(_ currency: String, country: String) throws -> ExternalPurchaseEvent {
        try ExternalPurchaseEvent(
            id: id, productID: productID, kind: kind, time: time,
            amount: ExternalReportAmount(currency: currency, preTaxMinorUnits: amount.preTaxMinorUnits, taxMinorUnits: amount.taxMinorUnits),
            taxCountry: try #require(ISOCountry(code: country)))
    }
}
