import Foundation
import HTTPCore

extension FakeGooglePlayCore {
    /// A refusal of a create request: Google's error answer.
    struct Refusal: Error {
        let response: HTTPResponse
    }

    /// The properties of `ExternalTransaction` in androidpublisher.v3.json (output-only ones are
    /// accepted and ignored, as Google ignores them).
    static let externalTransactionFields: Set<String> = [
        "createTime", "currentPreTaxAmount", "currentTaxAmount", "externalContentLinkDetails", "externalOfferDetails",
        "externalTransactionId", "oneTimeTransaction", "originalPreTaxAmount", "originalTaxAmount", "packageName", "recurringTransaction",
        "testPurchase", "transactionProgramCode", "transactionState", "transactionTime", "userTaxAddress"
    ]

    /// Checks a create body against the schema's required fields, types and unions, and the
    /// tokens and ids the fake knows; the record to keep (id and create time set by the caller).
    static func parseCreate(_ object: [String: Any], known: ExternalState) -> Result<ExternalTransactionRecord, Refusal> {
        func refuse(_ message: String) -> Result<ExternalTransactionRecord, Refusal> { .failure(Refusal(response: invalidArgument(message))) }
        if let unknown = object.keys.sorted().first(where: { !externalTransactionFields.contains($0) }) {
            return refuse("Invalid JSON payload received. Unknown name \"\(unknown)\": Cannot find field.")
        }
        guard let preTax = price(object["originalPreTaxAmount"]) else {
            return refuse("originalPreTaxAmount is required: a Price with currency and priceMicros (an int64 string).")
        }
        guard let tax = price(object["originalTaxAmount"]) else {
            return refuse("originalTaxAmount is required: a Price with currency and priceMicros (an int64 string).")
        }
        guard preTax.currency == tax.currency else { return refuse("originalPreTaxAmount and originalTaxAmount must have the same currency.") }
        guard let time = object["transactionTime"] as? String, isRFC3339(time) else {
            return refuse("transactionTime is required and must be an RFC 3339 timestamp.")
        }
        guard let address = object["userTaxAddress"] as? [String: Any], Set(address.keys).isSubset(of: ["regionCode", "administrativeArea"]),
            let region = address["regionCode"] as? String, region.utf8.count == 2,
            region.utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) })
        else {
            return refuse("userTaxAddress.regionCode is required: a two-letter ISO 3166-1 alpha-2 code.")
        }
        let area = address["administrativeArea"]
        if area != nil, (area as? String)?.isEmpty != false { return refuse("userTaxAddress.administrativeArea must be a string.") }
        if region == "IN", area == nil { return refuse("userTaxAddress.administrativeArea is required for transactions in India.") }
        var record = ExternalTransactionRecord(
            id: "", currency: preTax.currency, preTaxMicros: preTax.micros, taxMicros: tax.micros, currentPreTaxMicros: preTax.micros,
            currentTaxMicros: tax.micros, transactionTime: time, createTime: "", regionCode: region, administrativeArea: area as? String,
            isRecurring: false, initialID: nil, subscriptionType: nil, testPurchase: false)
        let oneTime = object["oneTimeTransaction"]
        let recurring = object["recurringTransaction"]
        guard (oneTime == nil) != (recurring == nil) else { return refuse("Exactly one of oneTimeTransaction and recurringTransaction is required.") }
        if let oneTime {
            guard let oneTime = oneTime as? [String: Any], Set(oneTime.keys) == ["externalTransactionToken"],
                let token = oneTime["externalTransactionToken"] as? String
            else {
                return refuse("oneTimeTransaction.externalTransactionToken is required.")
            }
            guard let test = known.tokens[token] else { return refuse("The external transaction token is invalid.") }
            record.testPurchase = test
        } else {
            switch parseRecurring(recurring, known: known, record: record) {
            case .success(let updated): record = updated
            case .failure(let refusal): return .failure(refusal)
            }
        }
        return parseProgram(object, record: record)
    }

    /// `recurringTransaction`: exactly one of the token (first payment) and
    /// `initialExternalTransactionId` (later ones, naming a first payment Google has), and the
    /// subscription's type.
    private static func parseRecurring(_ value: Any?, known: ExternalState, record: ExternalTransactionRecord) -> Result<
        ExternalTransactionRecord, Refusal
    > {
        func refuse(_ message: String) -> Result<ExternalTransactionRecord, Refusal> { .failure(Refusal(response: invalidArgument(message))) }
        let allowed: Set<String> = [
            "externalSubscription", "externalTransactionToken", "initialExternalTransactionId", "migratedTransactionProgram", "otherRecurringProduct"
        ]
        guard let recurring = value as? [String: Any], Set(recurring.keys).isSubset(of: allowed) else {
            return refuse("recurringTransaction has a field the schema does not list.")
        }
        var record = record
        record.isRecurring = true
        let token = recurring["externalTransactionToken"] as? String
        let initial = recurring["initialExternalTransactionId"] as? String
        guard (token == nil) != (initial == nil) else {
            return refuse("recurringTransaction needs externalTransactionToken for the first payment or initialExternalTransactionId for later ones.")
        }
        if let token {
            guard let test = known.tokens[token] else { return refuse("The external transaction token is invalid.") }
            record.testPurchase = test
        }
        if let initial {
            guard let first = known.transactions[initial], first.isRecurring, first.initialID == nil else {
                return refuse("initialExternalTransactionId must name the first transaction of a recurring series.")
            }
            record.initialID = initial
            record.testPurchase = first.testPurchase
        }
        if let subscription = recurring["externalSubscription"] {
            guard let subscription = subscription as? [String: Any], Set(subscription.keys) == ["subscriptionType"],
                let type = subscription["subscriptionType"] as? String, ["RECURRING", "PREPAID"].contains(type)
            else {
                return refuse("externalSubscription.subscriptionType is required: RECURRING or PREPAID.")
            }
            record.subscriptionType = type
        } else if recurring["otherRecurringProduct"] == nil {
            return refuse("recurringTransaction needs externalSubscription or otherRecurringProduct.")
        }
        return .success(record)
    }

    /// `transactionProgramCode` and at most one programme detail object, with the enums of the schema.
    private static func parseProgram(_ object: [String: Any], record: ExternalTransactionRecord) -> Result<ExternalTransactionRecord, Refusal> {
        func refuse(_ message: String) -> Result<ExternalTransactionRecord, Refusal> { .failure(Refusal(response: invalidArgument(message))) }
        var record = record
        if let code = object["transactionProgramCode"] {
            guard let code = integer(code), code >= Int64(Int32.min), code <= Int64(Int32.max) else {
                return refuse("transactionProgramCode must be an int32.")
            }
            record.programCode = code
        }
        let content = object["externalContentLinkDetails"]
        let offer = object["externalOfferDetails"]
        guard content == nil || offer == nil else { return refuse("Only one of externalContentLinkDetails and externalOfferDetails may be set.") }
        let linkTypes = ["LINK_TO_DIGITAL_CONTENT_OFFER", "LINK_TO_APP_DOWNLOAD"]
        if let content {
            guard let details = content as? [String: Any], Set(details.keys).isSubset(of: ["externalAppCategory", "installedAppPackage", "linkType"]),
                let linkType = details["linkType"] as? String, linkTypes.contains(linkType),
                details["externalAppCategory"].map({ ["APP", "GAME"].contains($0 as? String ?? "") }) ?? true
            else {
                return refuse("externalContentLinkDetails.linkType is required and the enums must be the schema's.")
            }
            record.details = ("externalContentLinkDetails", (try? JSONSerialization.data(withJSONObject: details)).map(Array.init) ?? [])
        }
        if let offer {
            guard record.programCode == nil else { return refuse("transactionProgramCode can not be used for external offers transactions.") }
            let allowed: Set<String> = ["appDownloadEventExternalTransactionId", "installedAppCategory", "installedAppPackage", "linkType"]
            guard let details = offer as? [String: Any], Set(details.keys).isSubset(of: allowed),
                details["linkType"].map({ linkTypes.contains($0 as? String ?? "") }) ?? true,
                details["installedAppCategory"].map({ ["APP", "GAME"].contains($0 as? String ?? "") }) ?? true
            else {
                return refuse("externalOfferDetails has a field or enum value the schema does not list.")
            }
            record.details = ("externalOfferDetails", (try? JSONSerialization.data(withJSONObject: details)).map(Array.init) ?? [])
        }
        return .success(record)
    }
}
