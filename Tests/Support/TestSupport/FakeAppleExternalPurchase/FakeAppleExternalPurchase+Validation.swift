import Foundation

extension FakeAppleExternalPurchase {
    /// One entry of a `SendReportErrorResponse`'s `errors`.
    struct FieldError: Sendable {
        var code: Int
        var message: String
        var field: String?
        var lineItem: String?

        var json: [String: Any] {
            var object: [String: Any] = ["errorCode": code, "errorMessage": message]
            if let field { object["fieldName"] = field }
            if let lineItem { object["lineItemId"] = lineItem }
            return object
        }
    }

    /// The fields each line item type may carry, from Apple's pages (required ones first):
    /// https://developer.apple.com/documentation/externalpurchaseserverapi/onetimebuylineitem,
    /// …/subscriptionbuylineitem, …/refundlineitem.
    static let common: Set<String> = [
        "lineItemId", "creationDate", "eventType", "pricingCurrency", "reportingCurrency", "amountTaxExclusive", "amountTaxInclusive",
        "netAmountTaxExclusive", "taxAmount", "taxCountry"
    ]
    static let optionalCommon: Set<String> = ["restatement", "erroneouslySubmitted", "exchangeRate"]
    static let oneTimeRequired = common.union(["productIdentifier", "quantity", "productType"])
    static let subscriptionRequired = oneTimeRequired.union([
        "subscriptionEvent", "subscriptionStartDate", "subscriptionEndDate", "subscriptionDaysOfPaidService"
    ])
    static let refundRequired = common.union(["referenceLineItemId"])
    static let amountFields = ["amountTaxExclusive", "amountTaxInclusive", "netAmountTaxExclusive", "taxAmount"]
    /// https://developer.apple.com/documentation/externalpurchaseserverapi/reportingcurrency
    static let reportingCurrencies: Set<String> = [
        "CLP", "EUR", "QAR", "COP", "VND", "EGP", "THB", "HKD", "NOK", "BRL", "GBP", "AUD", "SEK", "INR", "BGN", "ZAR", "KZT", "NGN",
        "TWD", "MXN", "CHF", "PEN", "DKK", "AED", "ILS", "KRW", "PHP", "TZS", "PKR", "HUF", "IDR", "CNY", "MYR", "RUB", "RON", "SGD",
        "TRY", "CZK", "SAR", "USD", "NZD", "PLN", "JPY", "CAD"
    ]

    /// Every error Apple would list for `report` (empty when it would accept it), given the line
    /// items it accepted before on this host.
    static func validate(_ report: [String: Any], environment: Environment, now: Date, known: [String: LineItem]) -> [FieldError] {
        var errors: [FieldError] = []
        func fail(_ code: Int, _ message: String, _ field: String?, _ item: String? = nil) {
            errors.append(FieldError(code: code, message: message, field: field, lineItem: item))
        }
        for key in report.keys.sorted() where !["requestIdentifier", "externalPurchaseId", "status", "lineItems"].contains(key) {
            fail(5, "The provided field is not allowed.", key)
        }
        if let id = report["requestIdentifier"] as? String {
            if UUID(uuidString: id) == nil { fail(0, "Fake: requestIdentifier is not a UUID.", "requestIdentifier") }
        } else {
            fail(4, "A required field is missing.", "requestIdentifier")
        }
        if let purchaseID = report["externalPurchaseId"] as? String, !purchaseID.isEmpty {
            if purchaseID.hasPrefix("SANDBOX") != (environment == .sandbox) {
                fail(3, "The referenced value was not found.", "externalPurchaseId")
            }
        } else {
            fail(4, "A required field is missing.", "externalPurchaseId")
        }
        let items = report["lineItems"] as? [[String: Any]]
        if report["lineItems"] != nil, items == nil { fail(0, "Fake: lineItems is not an array of objects.", "lineItems") }
        switch report["status"] as? String {
        case "LINE_ITEM":
            if (items ?? []).isEmpty { fail(9, "The external purchase ID has the status LINE_ITEM but is missing line items.", "status") }
        case "NO_LINE_ITEM", "UNRECOGNIZED_TOKEN":
            if report["lineItems"] != nil {
                fail(10, "A line item was provided for an external purchase ID that has a NO_LINE_ITEM or UNRECOGNIZED_TOKEN status.", "status")
            }
        case nil:
            fail(4, "A required field is missing.", "status")
        default:
            fail(7, "The provided value is unknown for an enumeration.", "status")
        }
        var inReport: [String: [String: Any]] = [:]
        for item in items ?? [] {
            let id = item["lineItemId"] as? String
            if let id {
                if inReport[id] != nil || (known[id] != nil && item["restatement"] as? Bool != true) {
                    fail(1, "The field's value is already submitted and a duplicate value is not expected.", "lineItemId", id)
                }
                inReport[id] = item
            }
            errors += validate(item: item, now: now, known: known, sameReport: inReport)
        }
        return errors
    }

    /// The errors of one line item.
    private static func validate(item: [String: Any], now: Date, known: [String: LineItem], sameReport: [String: [String: Any]]) -> [FieldError] {
        var errors: [FieldError] = []
        let id = item["lineItemId"] as? String
        func fail(_ code: Int, _ message: String, _ field: String) {
            errors.append(FieldError(code: code, message: message, field: field, lineItem: id))
        }
        let eventType = item["eventType"] as? String
        let required: Set<String>
        switch (eventType, item["productType"] as? String) {
        case ("BUY", "ONE_TIME_BUY"): required = oneTimeRequired
        case ("BUY", "SUBSCRIPTION"): required = subscriptionRequired.union(item["referenceLineItemId"] == nil ? [] : ["referenceLineItemId"])
        case ("REFUND", _): required = refundRequired
        case ("BUY", nil): required = oneTimeRequired
        default:
            fail(7, "The provided value is unknown for an enumeration.", eventType == nil ? "eventType" : "productType")
            return errors
        }
        for field in required.subtracting(item.keys).sorted() { fail(4, "A required field is missing.", field) }
        for field in Set(item.keys).subtracting(required).subtracting(optionalCommon).sorted() {
            fail(5, "The provided field is not allowed.", field)
        }
        for field in ["lineItemId", "referenceLineItemId", "productIdentifier", "pricingCurrency"] {
            guard let value = item[field] else { continue }
            guard let text = value as? String, !text.isEmpty else { fail(0, "Fake: \(field) is not a non-empty string.", field); continue }
            if text.utf8.count > 128 { fail(19, "The field's maximum length is exceeded.", field) }
        }
        for field in amountFields + ["creationDate", "quantity", "subscriptionStartDate", "subscriptionEndDate", "subscriptionDaysOfPaidService"] {
            guard let value = item[field] else { continue }
            guard let number = integer(value) else { fail(0, "Fake: \(field) is not an integer.", field); continue }
            if number < 0 { fail(15, "This field doesn't allow a negative value.", field) }
        }
        for field in ["restatement", "erroneouslySubmitted"] where item[field] != nil {
            if let number = item[field] as? NSNumber, ["c", "B"].contains(String(cString: number.objCType)) { continue }
            fail(0, "Fake: \(field) is not a boolean.", field)
        }
        if let created = integer(item["creationDate"]), Double(created) / 1000 > now.timeIntervalSince1970 + 1 {
            fail(6, "The provided date field is in the future and future values are not allowed.", "creationDate")
        }
        if let exclusive = integer(item["amountTaxExclusive"]), let tax = integer(item["taxAmount"]),
            let inclusive = integer(item["amountTaxInclusive"]), exclusive + tax != inclusive
        {
            fail(11, "The tax exclusive amount plus the tax amount does not equal the tax inclusive amount.", "amountTaxInclusive")
        }
        if let currency = item["reportingCurrency"] as? String, !reportingCurrencies.contains(currency) {
            fail(7, "The provided value is unknown for an enumeration.", "reportingCurrency")
        }
        if let pricing = item["pricingCurrency"] as? String, let reporting = item["reportingCurrency"] as? String {
            if pricing != reporting, item["exchangeRate"] == nil { fail(4, "A required field is missing.", "exchangeRate") }
            if pricing == reporting, item["exchangeRate"] != nil { fail(5, "The provided field is not allowed.", "exchangeRate") }
        }
        if let country = item["taxCountry"] as? String,
            country.utf8.count != 3 || !country.utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) })
        {
            fail(7, "The provided value is unknown for an enumeration.", "taxCountry")
        }
        if let quantity = integer(item["quantity"]), quantity < 1 { fail(0, "Fake: quantity is below 1.", "quantity") }
        errors += validateSubscription(item, id: id, known: known, sameReport: sameReport)
        errors += validateReference(item, id: id, known: known, sameReport: sameReport)
        return errors
    }

    /// `SubscriptionBuyLineItem` rules.
    private static func validateSubscription(
        _ item: [String: Any], id: String?, known: [String: LineItem], sameReport: [String: [String: Any]]
    ) -> [FieldError] {
        guard item["productType"] as? String == "SUBSCRIPTION" else { return [] }
        var errors: [FieldError] = []
        let event = item["subscriptionEvent"] as? String
        if let event, !["SUBSCRIPTION_START", "RENEWAL", "SUBSCRIPTION_CHANGE", "SUBSCRIPTION_PAYMENT"].contains(event) {
            errors.append(FieldError(code: 7, message: "The provided value is unknown for an enumeration.", field: "subscriptionEvent", lineItem: id))
        }
        if event == "SUBSCRIPTION_START", let days = integer(item["subscriptionDaysOfPaidService"]), days != 0 {
            errors.append(
                FieldError(
                    code: 34,
                    message: "The subscriptionDaysOfPaidService field must be zero for a line item with subscription event SUBSCRIPTION_START.",
                    field: "subscriptionDaysOfPaidService", lineItem: id))
        }
        if event == "RENEWAL", item["referenceLineItemId"] == nil {
            errors.append(FieldError(code: 4, message: "A required field is missing.", field: "referenceLineItemId", lineItem: id))
        }
        if let start = integer(item["subscriptionStartDate"]), let end = integer(item["subscriptionEndDate"]), start > end {
            errors.append(FieldError(code: 17, message: "The start date is after the end date.", field: "subscriptionEndDate", lineItem: id))
        }
        if let reference = item["referenceLineItemId"] as? String {
            let referencedEvent = sameReport[reference]?["subscriptionEvent"] as? String ?? known[reference]?.subscriptionEvent
            if sameReport[reference] != nil || known[reference] != nil, referencedEvent != "SUBSCRIPTION_START" {
                errors.append(
                    FieldError(
                        code: 14, message: "The referenced line item has no subscription event or its subscription event is not SUBSCRIPTION_START.",
                        field: "referenceLineItemId", lineItem: id))
            }
        }
        return errors
    }

    /// Reference rules: the referenced line item exists; a refund refers to a buy, and its net
    /// amount is the buy's pre-tax amount less every refund of it.
    private static func validateReference(
        _ item: [String: Any], id: String?, known: [String: LineItem], sameReport: [String: [String: Any]]
    ) -> [FieldError] {
        guard let reference = item["referenceLineItemId"] as? String else { return [] }
        let inReport = sameReport[reference]
        guard inReport != nil || known[reference] != nil else {
            return [FieldError(code: 3, message: "The referenced value was not found.", field: "referenceLineItemId", lineItem: id)]
        }
        guard item["eventType"] as? String == "REFUND" else { return [] }
        let referencedType = inReport?["eventType"] as? String ?? known[reference]?.eventType
        guard referencedType == "BUY" else {
            return [FieldError(code: 21, message: "The referenced line item is not a buy.", field: "referenceLineItemId", lineItem: id)]
        }
        let original = integer(inReport?["amountTaxExclusive"]) ?? known[reference]?.amountTaxExclusive ?? 0
        let refundedBefore = known[reference]?.refundedTaxExclusive ?? 0
        if let refund = integer(item["amountTaxExclusive"]), let net = integer(item["netAmountTaxExclusive"]),
            net != original - refundedBefore - refund
        {
            return [
                FieldError(code: 12, message: "The net amount value does not match the expected value.", field: "netAmountTaxExclusive", lineItem: id)
            ]
        }
        return []
    }

    /// The ids of `report` that contain an `@` (an email address would).
    static func personalData(_ report: [String: Any]) -> [String] {
        var ids = [report["requestIdentifier"], report["externalPurchaseId"]].compactMap { $0 as? String }
        for item in report["lineItems"] as? [[String: Any]] ?? [] {
            ids += ["lineItemId", "referenceLineItemId", "productIdentifier"].compactMap { item[$0] as? String }
        }
        return ids.filter { $0.contains("@") }
    }
}
