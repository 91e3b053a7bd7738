import Crypto
import Foundation
import JSON

extension ExternalPurchaseReport {
    /// The `ExternalPurchaseReport` request body, members in the order of Apple's examples.
    /// - Throws: `UpstreamError.invalidReport` when an amount does not convert to milli-units
    ///   or the currency is not one Apple reports in.
    public func body() throws -> [UInt8] {
        var members: [(key: String, value: JSONValue)] = [
            ("requestIdentifier", .string(requestIdentifierString)), ("externalPurchaseId", .string(externalPurchaseID)),
            ("status", .string(status.rawValue))
        ]
        if status == .lineItem { members.append(("lineItems", .array(try events.map(Self.lineItem)))) }
        return JSONValue.object(members).serialized()
    }

    /// The line item for `event`: a `OneTimeBuyLineItem`, `SubscriptionBuyLineItem` or
    /// `RefundLineItem` with exactly the fields Apple's page for it lists.
    /// - Throws: `UpstreamError.invalidReport` as `body()`.
    static func lineItem(_ event: ExternalPurchaseEvent) throws -> JSONValue {
        let currency = event.amount.currency
        guard reportingCurrencies.contains(currency) else {
            throw UpstreamError.invalidReport(
                "Apple takes reports in \(currency) only with an exchange rate to EUR or USD, which Tollgate does not compute; price this product in a currency Apple lists for reportingCurrency"
            )
        }
        let preTax = try ExternalReportAmount.milliUnits(event.amount.preTaxMinorUnits, currency: currency)
        let tax = try ExternalReportAmount.milliUnits(event.amount.taxMinorUnits, currency: currency)
        var members: [(key: String, value: JSONValue)] = [
            ("lineItemId", .string(event.id.value)), ("creationDate", .integer(ExternalPurchaseEvent.milliseconds(event.time)))
        ]
        var net = preTax
        switch event.kind {
        case .oneTimeBuy:
            members += [("eventType", "BUY"), ("productType", "ONE_TIME_BUY"), ("productIdentifier", .string(event.productID))]
        case .subscriptionStart, .subscriptionRenewal:
            members += [("eventType", "BUY"), ("productType", "SUBSCRIPTION"), ("productIdentifier", .string(event.productID))]
        case .refund(_, let remaining):
            members.append(("eventType", "REFUND"))
            net = try ExternalReportAmount.milliUnits(remaining, currency: currency)
        }
        members += [
            ("amountTaxInclusive", .integer(preTax + tax)), ("amountTaxExclusive", .integer(preTax)), ("taxAmount", .integer(tax)),
            ("netAmountTaxExclusive", .integer(net)), ("reportingCurrency", .string(currency)), ("pricingCurrency", .string(currency)),
            ("taxCountry", .string(event.taxCountry.alpha3))
        ]
        switch event.kind {
        case .oneTimeBuy(let quantity):
            members.append(("quantity", .integer(Int64(quantity))))
        case .subscriptionStart(let start, let end):
            members += subscription("SUBSCRIPTION_START", start, end, paidDays: 0)
            members.append(("quantity", 1))
        case .subscriptionRenewal(let initial, let start, let end, let paidDays):
            members += subscription("RENEWAL", start, end, paidDays: paidDays)
            members += [("quantity", 1), ("referenceLineItemId", .string(initial.value))]
        case .refund(let refunded, _):
            members.append(("referenceLineItemId", .string(refunded.value)))
        }
        return .object(members)
    }

    private static func subscription(_ event: String, _ start: Date, _ end: Date, paidDays: Int) -> [(key: String, value: JSONValue)] {
        [
            ("subscriptionEvent", .string(event)), ("subscriptionStartDate", .integer(ExternalPurchaseEvent.milliseconds(start))),
            ("subscriptionEndDate", .integer(ExternalPurchaseEvent.milliseconds(end))),
            ("subscriptionDaysOfPaidService", .integer(Int64(paidDays)))
        ]
    }

    /// The `reportingCurrency` values Apple allows
    /// (https://developer.apple.com/documentation/externalpurchaseserverapi/reportingcurrency): a
    /// product priced in one of them is reported in it, without an exchange rate.
    public static let reportingCurrencies: Set<String> = [
        "CLP", "EUR", "QAR", "COP", "VND", "EGP", "THB", "HKD", "NOK", "BRL", "GBP", "AUD", "SEK", "INR", "BGN", "ZAR", "KZT", "NGN",
        "TWD", "MXN", "CHF", "PEN", "DKK", "AED", "ILS", "KRW", "PHP", "TZS", "PKR", "HUF", "IDR", "CNY", "MYR", "RUB", "RON", "SGD",
        "TRY", "CZK", "SAR", "USD", "NZD", "PLN", "JPY", "CAD"
    ]
}
