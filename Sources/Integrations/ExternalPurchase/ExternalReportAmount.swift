/// What a buyer paid, or got back, for one reported event: the pre-tax amount and the tax, in
/// the currency's minor units (cents; what Stripe calls the smallest currency unit).
///
/// Each platform's unit is derived here: Apple wants milli-units (1/1000 of the currency's base
/// unit: €2.99 is 2990), Google micros as a string (1/1,000,000: €2.99 is "2990000"). The
/// exponent is ISO 4217's (2 for EUR and USD, 0 for JPY, 3 for KWD...).
public struct ExternalReportAmount: Sendable, Equatable {
    /// The ISO 4217 code, upper case (`EUR`).
    public let currency: String
    /// The amount before tax, in minor units; never negative.
    public let preTaxMinorUnits: Int64
    /// The tax, in minor units; never negative.
    public let taxMinorUnits: Int64

    /// An amount in `currency`.
    /// - Throws: `UpstreamError.invalidReport` for a currency that is not three upper-case
    ///   letters or a negative amount.
    public init(currency: String, preTaxMinorUnits: Int64, taxMinorUnits: Int64) throws {
        guard currency.utf8.count == 3, currency.utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) else {
            throw UpstreamError.invalidReport("currency \"\(currency.prefix(20))\" is not an ISO 4217 code (three upper-case letters)")
        }
        guard preTaxMinorUnits >= 0, taxMinorUnits >= 0 else {
            throw UpstreamError.invalidReport(
                "amounts are never negative (pre-tax \(preTaxMinorUnits), tax \(taxMinorUnits)); a refund is its own event")
        }
        guard preTaxMinorUnits.addingReportingOverflow(taxMinorUnits).overflow == false else {
            throw UpstreamError.invalidReport("pre-tax amount plus tax overflows")
        }
        self.currency = currency
        self.preTaxMinorUnits = preTaxMinorUnits
        self.taxMinorUnits = taxMinorUnits
    }

    /// Pre-tax amount plus tax, in minor units.
    public var totalMinorUnits: Int64 { preTaxMinorUnits + taxMinorUnits }

    /// ISO 4217's number of decimals of `currency` (its minor unit exponent).
    public static func minorUnitExponent(of currency: String) -> Int {
        if zeroDecimal.contains(currency) { return 0 }
        if threeDecimal.contains(currency) { return 3 }
        if fourDecimal.contains(currency) { return 4 }
        return 2
    }

    /// `minorUnits` of `currency` in milli-units (Apple's unit).
    /// - Throws: `UpstreamError.invalidReport` when it does not fit or is not a whole number of milli-units.
    public static func milliUnits(_ minorUnits: Int64, currency: String) throws -> Int64 {
        try rescale(minorUnits, currency: currency, toDecimals: 3, unit: "milli-units")
    }

    /// `minorUnits` of `currency` in micros (Google's unit).
    /// - Throws: `UpstreamError.invalidReport` when it does not fit.
    public static func micros(_ minorUnits: Int64, currency: String) throws -> Int64 {
        try rescale(minorUnits, currency: currency, toDecimals: 6, unit: "micros")
    }

    private static func rescale(_ minorUnits: Int64, currency: String, toDecimals: Int, unit: String) throws -> Int64 {
        let exponent = minorUnitExponent(of: currency)
        if exponent <= toDecimals {
            var factor: Int64 = 1
            for _ in 0..<(toDecimals - exponent) { factor *= 10 }
            let (value, overflow) = minorUnits.multipliedReportingOverflow(by: factor)
            guard !overflow else { throw UpstreamError.invalidReport("\(minorUnits) \(currency) minor units overflow in \(unit)") }
            return value
        }
        var divisor: Int64 = 1
        for _ in 0..<(exponent - toDecimals) { divisor *= 10 }
        guard minorUnits % divisor == 0 else {
            throw UpstreamError.invalidReport("\(minorUnits) \(currency) minor units are not a whole number of \(unit)")
        }
        return minorUnits / divisor
    }

    /// ISO 4217 currencies without decimals.
    private static let zeroDecimal: Set<String> = [
        "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF", "XOF", "XPF"
    ]
    /// ISO 4217 currencies with three decimals.
    private static let threeDecimal: Set<String> = ["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"]
    /// ISO 4217 currencies with four decimals (units of account).
    private static let fourDecimal: Set<String> = ["CLF", "UYW"]
}
