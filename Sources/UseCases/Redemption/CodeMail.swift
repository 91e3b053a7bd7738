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
            parameters: try parameters(issued, purchase: purchase, on: connection), on: connection)
    }

    /// A fresh code after an expired one or a resend request (`code_resent`).
    func queueResent(_ issued: CodeRepository.Issued, purchase: Purchase, to email: String, on connection: Connection) throws {
        var values = try parameters(issued, purchase: purchase, on: connection)
        values["masked_email"] = EmailMask.mask(email)
        try mail.enqueue(key: "code:\(issued.record.id)", template: "code_resent", to: email, parameters: values, on: connection)
    }

    /// Wakes delivery after the transaction that queued mail committed.
    func queued() { mail.queued() }

    /// Written in the purchase's language (kept from its checkout; none: the default), which
    /// its links carry as `?locale=` so the pages they open speak it too.
    private func parameters(_ issued: CodeRepository.Issued, purchase: Purchase, on connection: Connection) throws -> [String: String] {
        try parameters(code: issued.code, expiresAt: issued.record.expiresAt, purchase: purchase, on: connection)
    }

    /// The values every code mail carries, for `code` valid until `expiresAt`.
    func parameters(code: RedemptionCode, expiresAt: Date, purchase: Purchase, on connection: Connection) throws -> [String: String] {
        let locale = try PurchaseLocale.of(purchaseID: purchase.id, on: connection)
        var values = [
            "code": code.display,
            "product_name": products.name(of: purchase.productID),
            "redeem_url": links.url("/redeem/" + code.display, locale: locale),
            "expiry_text": LocaleFormat.dateTime(expiresAt, language: locale ?? "en"),
            "manage_url": links.url("/manage", locale: locale)
        ]
        if let locale = locale { values[MailComposer.localeParameter] = locale }
        return values
    }
}
