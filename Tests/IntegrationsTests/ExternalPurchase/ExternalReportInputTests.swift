import Foundation
import Integrations
import Testing

@Suite("External report inputs: ids, amounts, countries, events")
struct ExternalReportInputTests {
    @Test(
        "Ids follow Google's externalTransactionId rule, which keeps email addresses out",
        arguments: [
            ("p_123-abc", true), (String(repeating: "a", count: 63), true), (String(repeating: "a", count: 64), false), ("", false),
            ("buyer@example.com", false), ("a.b", false), ("a b", false), ("é", false)
        ])
    func ids(value: String, valid: Bool) {
        #expect(ExternalReportID.isValid(value) == valid)
        #expect(((try? ExternalReportID(value)) != nil) == valid)
    }

    @Test(
        "Minor units become Apple's milli-units and Google's micros by the currency's ISO 4217 exponent",
        arguments: [
            ("EUR", Int64(299), Int64(2990), Int64(2_990_000)), ("JPY", 500, 500_000, 500_000_000), ("KWD", 1234, 1234, 1_234_000),
            ("USD", 0, 0, 0), ("CLF", 12340, 1234, 1_234_000)
        ])
    func units(currency: String, minor: Int64, milli: Int64, micros: Int64) throws {
        #expect(try ExternalReportAmount.milliUnits(minor, currency: currency) == milli)
        #expect(try ExternalReportAmount.micros(minor, currency: currency) == micros)
    }

    @Test("Amounts refuse a bad currency, negative values, overflow and sub-milli fractions")
    func badAmounts() {
        #expect { try ExternalReportAmount(currency: "eur", preTaxMinorUnits: 1, taxMinorUnits: 0) } throws: {
            ($0 as? UpstreamError)?.reportError != nil
        }
        #expect { try ExternalReportAmount(currency: "EURO", preTaxMinorUnits: 1, taxMinorUnits: 0) } throws: {
            ($0 as? UpstreamError)?.reportError != nil
        }
        #expect { try ExternalReportAmount(currency: "EUR", preTaxMinorUnits: -1, taxMinorUnits: 0) } throws: {
            ($0 as? UpstreamError)?.reportError != nil
        }
        #expect { try ExternalReportAmount(currency: "EUR", preTaxMinorUnits: .max, taxMinorUnits: 1) } throws: {
            ($0 as? UpstreamError)?.reportError != nil
        }
        #expect { try ExternalReportAmount.micros(.max / 100, currency: "EUR") } throws: { ($0 as? UpstreamError)?.reportError != nil }
        #expect { try ExternalReportAmount.milliUnits(12345, currency: "CLF") } throws: { ($0 as? UpstreamError)?.reportError != nil }
    }

    @Test("Countries convert between alpha-2 and alpha-3; unknown or user-assigned codes are refused")
    func countries() throws {
        #expect(ISOCountry.all.count == 249)
        #expect(ISOCountry(code: "DEU")?.alpha2 == "DE")
        #expect(ISOCountry(code: "ES")?.alpha3 == "ESP")
        #expect(ISOCountry(code: "USA") == ISOCountry(code: "US"))
        #expect(ISOCountry(code: "GS")?.alpha3 == "SGS")
        for code in ["XK", "XKX", "usa", "U", "EURO", ""] { #expect(ISOCountry(code: code) == nil, "\(code)") }
        #expect(Set(ISOCountry.all.map(\.alpha3)).count == 249)
    }

    @Test("Events refuse what no platform would take")
    func badEvents() throws {
        let amount = try Events.amount(100, 20)
        let spain = try Events.country("ES")
        let now = Date()
        func event(_ kind: ExternalPurchaseEvent.Kind, id: String = "e_1", product: String = "p") throws -> ExternalPurchaseEvent {
            try ExternalPurchaseEvent(id: Events.id(id), productID: product, kind: kind, time: now, amount: amount, taxCountry: spain)
        }
        #expect { try event(.oneTimeBuy(quantity: 0)) } throws: { ($0 as? UpstreamError)?.reportError != nil }
        #expect { try event(.oneTimeBuy(quantity: 1), product: "") } throws: { ($0 as? UpstreamError)?.reportError != nil }
        #expect { try event(.oneTimeBuy(quantity: 1), product: String(repeating: "p", count: 129)) } throws: {
            ($0 as? UpstreamError)?.reportError != nil
        }
        #expect { try event(.subscriptionStart(periodStart: now, periodEnd: now)) } throws: { ($0 as? UpstreamError)?.reportError != nil }
        #expect {
            try event(.subscriptionRenewal(initial: Events.id("e_1"), periodStart: now, periodEnd: now + 10, paidDaysBefore: 30))
        } throws: { ($0 as? UpstreamError)?.reportError != nil }
        #expect {
            try event(.subscriptionRenewal(initial: Events.id("e_0"), periodStart: now, periodEnd: now + 10, paidDaysBefore: -1))
        } throws: { ($0 as? UpstreamError)?.reportError != nil }
        #expect { try event(.refund(refunded: Events.id("e_0"), remainingPreTaxMinorUnits: -1)) } throws: {
            ($0 as? UpstreamError)?.reportError != nil
        }
        #expect { try event(.refund(refunded: Events.id("e_1"), remainingPreTaxMinorUnits: 0)) } throws: {
            ($0 as? UpstreamError)?.reportError != nil
        }
        #expect(throws: Never.self) { try event(.oneTimeBuy(quantity: 3)) }
    }

    @Test("Reports refuse an empty LINE_ITEM report, shared event ids and bad externalPurchaseIds")
    func badReports() throws {
        let buy = try Events.oneTime("e_1", at: Date())
        #expect { try ExternalPurchaseReport.lineItems(requestIdentifier: UUID(), externalPurchaseID: "t", events: []) } throws: {
            ($0 as? UpstreamError)?.reportError != nil
        }
        #expect {
            try ExternalPurchaseReport.lineItems(requestIdentifier: UUID(), externalPurchaseID: "t", events: [buy, buy])
        } throws: { ($0 as? UpstreamError)?.reportError != nil }
        #expect { try ExternalPurchaseReport.noLineItem(requestIdentifier: UUID(), externalPurchaseID: "") } throws: {
            ($0 as? UpstreamError)?.reportError != nil
        }
        #expect { try ExternalPurchaseReport.noLineItem(requestIdentifier: UUID(), externalPurchaseID: "a b") } throws: {
            ($0 as? UpstreamError)?.reportError != nil
        }
        let report = try ExternalPurchaseReport.noLineItem(requestIdentifier: UUID(), externalPurchaseID: "SANDBOX_1")
        #expect(report.isSandbox)
        #expect(report.requestIdentifierString == report.requestIdentifierString.lowercased())
    }
}
