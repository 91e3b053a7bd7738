import Crypto
import Foundation
import JSON
import Logging

extension GooglePlayExternalTransactionsClient {
    /// The `ExternalTransaction` request body for `event` (a buy, a subscription start or a renewal).
    /// - Throws: `UpstreamError.invalidReport` for a refund, a first purchase without a
    ///   token, India without a state, or an amount that does not fit in micros.
    static func createBody(
        _ event: ExternalPurchaseEvent, token: GooglePlayExternalTransactionToken?, program: GooglePlayExternalProgram
    ) throws -> [UInt8] {
        var members: [(key: String, value: JSONValue)] = [
            ("originalPreTaxAmount", try price(event.amount.preTaxMinorUnits, event.amount.currency)),
            ("originalTaxAmount", try price(event.amount.taxMinorUnits, event.amount.currency)),
            ("transactionTime", .string(timestamp(event.time)))
        ]
        var address: [(key: String, value: JSONValue)] = [("regionCode", .string(event.taxCountry.alpha2))]
        if let area = event.taxAdministrativeArea {
            address.append(("administrativeArea", .string(area)))
        } else if event.taxCountry.alpha2 == "IN" {
            throw UpstreamError.invalidReport("event \(event.id): Google needs the buyer's state (administrativeArea) for India")
        }
        members.append(("userTaxAddress", .object(address)))
        let subscription: JSONValue = ["subscriptionType": "RECURRING"]
        switch event.kind {
        case .oneTimeBuy:
            guard let token else { throw missingToken(event) }
            members.append(("oneTimeTransaction", ["externalTransactionToken": .string(token.value)]))
        case .subscriptionStart:
            guard let token else { throw missingToken(event) }
            members.append(("recurringTransaction", ["externalTransactionToken": .string(token.value), "externalSubscription": subscription]))
        case .subscriptionRenewal(let initial, _, _, _):
            members.append(("recurringTransaction", ["initialExternalTransactionId": .string(initial.value), "externalSubscription": subscription]))
        case .refund:
            throw UpstreamError.invalidReport("event \(event.id) is a refund: send it with refund(_:)")
        }
        if let code = program.transactionProgramCode { members.append(("transactionProgramCode", .integer(Int64(code)))) }
        switch program.details {
        case .externalContentLink(let linkType, let package, let category):
            var details: [(key: String, value: JSONValue)] = []
            if let category { details.append(("externalAppCategory", .string(category.rawValue))) }
            if let package { details.append(("installedAppPackage", .string(package))) }
            details.append(("linkType", .string(linkType.rawValue)))
            members.append(("externalContentLinkDetails", .object(details)))
        case .externalOffer(let linkType, let package, let category, let downloadID):
            var details: [(key: String, value: JSONValue)] = []
            if let downloadID { details.append(("appDownloadEventExternalTransactionId", .string(downloadID))) }
            if let category { details.append(("installedAppCategory", .string(category.rawValue))) }
            if let package { details.append(("installedAppPackage", .string(package))) }
            if let linkType { details.append(("linkType", .string(linkType.rawValue))) }
            members.append(("externalOfferDetails", .object(details)))
        case nil:
            break
        }
        return JSONValue.object(members).serialized()
    }

    /// The `RefundExternalTransactionRequest` body for the refund `event`: `fullRefund` when nothing
    /// remains, else a `partialRefund` whose `refundId` is the event's id.
    /// - Throws: `UpstreamError.invalidReport` when `event` is not a refund or the amount does not fit.
    static func refundBody(_ event: ExternalPurchaseEvent) throws -> [UInt8] {
        guard case .refund(_, let remaining) = event.kind else {
            throw UpstreamError.invalidReport("event \(event.id) is not a refund")
        }
        var members: [(key: String, value: JSONValue)] = [("refundTime", .string(timestamp(event.time)))]
        if remaining == 0 {
            members.append(("fullRefund", .object([])))
        } else {
            members.append(
                (
                    "partialRefund",
                    [
                        "refundId": .string(event.id.value), "refundPreTaxAmount": try price(event.amount.preTaxMinorUnits, event.amount.currency)
                    ]
                ))
        }
        return JSONValue.object(members).serialized()
    }

    /// A `Price`: `priceMicros` as a decimal string and the currency.
    static func price(_ minorUnits: Int64, _ currency: String) throws -> JSONValue {
        ["priceMicros": .string(String(try ExternalReportAmount.micros(minorUnits, currency: currency))), "currency": .string(currency)]
    }

    /// RFC 3339 in UTC with milliseconds, as Google writes times.
    static func timestamp(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        return RFC3339.format(secondsSince1970: Int(seconds), milliseconds: Int(milliseconds - seconds * 1000))
    }

    private static func missingToken(_ event: ExternalPurchaseEvent) -> UpstreamError {
        .invalidReport("event \(event.id) is a first purchase: Google needs the externalTransactionToken the app got from the Play Billing Library")
    }
}
