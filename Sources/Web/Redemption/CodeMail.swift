import Crypto
import Domain
import Foundation
import Storage

/// Queues the emails that carry a redemption code, in the caller's transaction.
struct CodeMail {
    let services: AppServices

    /// The first email of a purchase's code (`redemption_code`).
    func queueIssued(_ issued: CodeRepository.Issued, purchase: Purchase, to email: String, on connection: Connection) throws {
        try services.enqueueMail(
            key: "code:\(issued.record.id)", template: "redemption_code", to: email,
            parameters: parameters(issued, purchase: purchase), on: connection)
    }

    /// A fresh code after an expired one or a resend request (`code_resent`).
    func queueResent(_ issued: CodeRepository.Issued, purchase: Purchase, to email: String, on connection: Connection) throws {
        var values = parameters(issued, purchase: purchase)
        values["masked_email"] = EmailMask.mask(email)
        try services.enqueueMail(key: "code:\(issued.record.id)", template: "code_resent", to: email, parameters: values, on: connection)
    }

    private func parameters(_ issued: CodeRepository.Issued, purchase: Purchase) -> [String: String] {
        [
            "code": issued.code.display,
            "product_name": services.productName(purchase.productID),
            "redeem_url": services.url("/redeem/" + issued.code.display),
            "expiry_text": Self.humanDate(issued.record.expiresAt),
        ]
    }

    /// `21 November 2026, 18:00 UTC`.
    static func humanDate(_ date: Date) -> String {
        let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let minute = parts.tm_min < 10 ? "0\(parts.tm_min)" : "\(parts.tm_min)"
        return "\(parts.tm_mday) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900), \(parts.tm_hour):\(minute) UTC"
    }
}

extension AppServices {
    /// A name for a product in emails and pages: the entitlement it grants, else its plan, else the id.
    func productName(_ productID: String) -> String {
        if let entitlement = config.entitlements.keys.sorted().first(where: { config.entitlements[$0]?.contains(productID) == true }) {
            return entitlement.prefix(1).uppercased() + entitlement.dropFirst()
        }
        if let plan = config.plans.keys.sorted().first(where: { config.plans[$0]?.priceID == productID }) {
            return plan.prefix(1).uppercased() + plan.dropFirst()
        }
        return productID
    }
}
