import Foundation
import HTTPCore
import HTTPRouting
import UseCases

/// `/mail/unsubscribe/{token}`, the reminders' `List-Unsubscribe` link (RFC 8058): a POST (the
/// mail client's one-click `List-Unsubscribe=One-Click`, or the page's button) stops that
/// purchase's reminders and answers 200; a GET only shows the button (scanners prefetch links).
/// An unknown or used token gets the same 404 page either way, which says nothing about it.
struct UnsubscribeRoutes {
    let unsubscribe: UnsubscribeReminders
    let pages: Pages
    let now: @Sendable () -> Date

    func add(to group: inout RouteGroup) {
        group.add(.get, "/mail/unsubscribe/{token}") { [self] request, context in
            let token = context.parameters["token"] ?? ""
            guard try await unsubscribe.isUsable(token) else { throw Self.unusable }
            // The button posts back to the link as it came, its language (`?locale=`) kept.
            let locale = request.queryParameter(Links.localeParameter).flatMap { Self.isLanguageTag($0) ? "?\(Links.localeParameter)=\($0)" : nil }
            return try pages.render(
                "unsubscribe", language: pages.language(for: request), ["action": .string("/mail/unsubscribe/" + token + (locale ?? ""))])
        }
        group.add(.post, "/mail/unsubscribe/{token}", maxBodyBytes: 4096) { [self] request, context in
            let token = context.parameters["token"] ?? ""
            guard try await unsubscribe.unsubscribe(token, now: now()) else { throw Self.unusable }
            return try pages.render("unsubscribe", language: pages.language(for: request), ["done": true])
        }
    }

    /// A language tag's characters (`pt-BR`), at most 35.
    static func isLanguageTag(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 35
            && text.utf8.allSatisfy {
                $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
            }
    }

    /// One answer for every token that cannot unsubscribe.
    static let unusable = APIError.notFound("This unsubscribe link is not valid.")
}
