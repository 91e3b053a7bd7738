import Domain
import Foundation
import Integrations

extension LinkOutReportLine {
    /// The line as the platforms' neutral event (`ExternalPurchaseEvent`): a one-time buy of
    /// quantity 1, a subscription's first period, a renewal naming the first period's line
    /// (`firstLineID`), or a refund naming the line it refunds. The tax country is the storefront
    /// the app linked out from (ISO 3166-1 alpha-3, as StoreKit gives it).
    /// - Throws: `UpstreamError.invalidReport` when something the platforms need is missing
    ///   (an amount, a currency, a period, the first line) or unusable.
    func externalEvent(storefront: String, firstLineID: String?) throws -> ExternalPurchaseEvent {
        func invalid(_ what: String) -> UpstreamError { .invalidReport("line \(lineID): \(what)") }
        guard let country = ISOCountry(code: storefront) else { throw invalid("storefront \(storefront) is not an ISO 3166-1 country") }
        guard let amountMinor, let currency else { throw invalid("the payment processor did not say the amount and currency") }
        let amount = try ExternalReportAmount(currency: currency, preTaxMinorUnits: Int64(amountMinor), taxMinorUnits: Int64(taxMinor ?? 0))
        let kind: ExternalPurchaseEvent.Kind
        switch (self.kind, productType) {
        case (.purchase, .oneTime):
            kind = .oneTimeBuy(quantity: 1)
        case (.purchase, .subscription):
            guard let periodStart, let periodEnd else { throw invalid("a subscription's first payment without its period") }
            kind = .subscriptionStart(periodStart: periodStart, periodEnd: periodEnd)
        case (.renewal, _):
            guard let periodStart, let periodEnd else { throw invalid("a renewal without its period") }
            guard let firstLineID else { throw invalid("a renewal without the subscription's first payment") }
            kind = .subscriptionRenewal(
                initial: try ExternalReportID(firstLineID), periodStart: periodStart, periodEnd: periodEnd, paidDaysBefore: paidDaysBefore ?? 0)
        case (.refund, _):
            guard let referenceLineID else { throw invalid("a refund without the line it refunds") }
            kind = .refund(refunded: try ExternalReportID(referenceLineID), remainingPreTaxMinorUnits: Int64(remainingPreTaxMinor ?? 0))
        }
        return try ExternalPurchaseEvent(
            id: try ExternalReportID(lineID), productID: productID, kind: kind, time: occurredAt, amount: amount, taxCountry: country)
    }
}
