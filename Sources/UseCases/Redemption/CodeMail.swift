import Mail
import Domain
import Foundation
import Storage

/// Queues the emails that carry a redemption code, in the caller's transaction.
public struct CodeMail: Sendable {
    let mail: MailQueue
    let links: Links
    let products: ProductNames

    public init(mail: MailQueue, links: Links, products: ProductNames) {
        self.mail = mail
        self.links = links
        self.products = products
    }

    /// The first email of a purchase's code (`redemption_code`).
    func queueIssued(_ issued: CodeRepository.Issued, purchase: Purchase, to email: String, on connection: Connection) throws {
        try mail.enqueue(
            key: "code:\(issued.record.id)", template: "redemption_code", to: email,
            parameters: parameters(issued, purchase: purchase), on: connection)
    }

    /// A fresh code after an expired one or a resend request (`code_resent`).
    func queueResent(_ issued: CodeRepository.Issued, purchase: Purchase, to email: String, on connection: Connection) throws {
        var values = parameters(issued, purchase: purchase)
        values["masked_email"] = EmailMask.mask(email)
        try mail.enqueue(key: "code:\(issued.record.id)", template: "code_resent", to: email, parameters: values, on: connection)
    }

    /// Wakes delivery after the transaction that queued mail committed.
    func queued() { mail.queued() }

    private func parameters(_ issued: CodeRepository.Issued, purchase: Purchase) -> [String: String] {
        [
            "code": issued.code.display,
            "product_name": products.name(of: purchase.productID),
            "redeem_url": links.url("/redeem/" + issued.code.display),
            "expiry_text": Self.humanDate(issued.record.expiresAt),
            "manage_url": links.url("/manage"),
        ]
    }

    /// `21 November 2026, 18:00 UTC`.
    public static func humanDate(_ date: Date) -> String {
        let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let minute = parts.tm_min < 10 ? "0\(parts.tm_min)" : "\(parts.tm_min)"
        return "\(parts.tm_mday) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900), \(parts.tm_hour):\(minute) UTC"
    }
}
