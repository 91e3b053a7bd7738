import Configuration
import Domain
import QRCode
import Templating
import UseCases

/// The ways back into the app for a code: the custom-scheme deeplink, the universal link,
/// the store links for the visitor's platform, and — on desktop — a QR code of the
/// universal link to scan with the phone.
///
/// How "Open the app" works: the universal link (`{base_url}/redeem/CODE`) is what the email
/// and the QR code carry; tapped in a mail app or scanned by a camera it opens the app directly
/// (iOS universal link, Android App Link). On our own pages it cannot: iOS and Chrome do not hand
/// a link to the app when it points at the domain the visitor is already on. So the page's
/// button uses the custom scheme on iOS, and on Android an `intent://` link that opens the app
/// or, when it is not installed, its Google Play listing. Desktop shows the QR code instead.
struct AppLinks {
    let links: Links
    let app: TollgateConfig.App
    let code: RedemptionCode

    var universalLink: String { links.url("/redeem/" + code.display) }

    var deeplink: String? { links.app("redeem?code=\(code.display)") }

    /// The Android intent link: the app when installed, else Chrome opens its Play listing.
    var androidIntent: String? {
        let scheme = app.scheme
        guard !scheme.isEmpty, let package = app.android.packageName, !package.isEmpty else { return nil }
        return "intent://redeem?code=\(code.display)#Intent;scheme=\(scheme);package=\(package);end"
    }

    /// The "Open" button's target on `platform`; nil on desktop.
    func openLink(for platform: ClientPlatform) -> String? {
        switch platform {
        case .iOS: deeplink
        case .android: androidIntent ?? deeplink
        case .desktop: nil
        }
    }

    /// Template values shared by the success and redeem pages (see the comment at the top of
    /// `templates/success.html`). `autoOpen` adds `auto_open`: the deeplink app.js tries once.
    func values(for platform: ClientPlatform, autoOpen: Bool = false) -> [String: TemplateValue] {
        let ios = app.ios.appStoreURL
        let android = app.android.playStoreURL
        var values: [String: TemplateValue] = [
            "code": .string(code.display),
            "code_groups": .list(code.display.split(separator: "-").map { .string(String($0)) }),
            "universal_link": .string(universalLink),
            "platform": .string(platform.rawValue),
            "is_ios": .bool(platform == .iOS),
            "is_android": .bool(platform == .android),
            "is_desktop": .bool(platform == .desktop),
        ]
        if let deeplink { values["deeplink"] = .string(deeplink) }
        if let open = openLink(for: platform) { values["open_link"] = .string(open) }
        if autoOpen, platform != .desktop, let deeplink { values["auto_open"] = .string(deeplink) }
        if let ios, platform != .android { values["app_store_url"] = .string(ios) }
        if let android, platform != .iOS { values["play_store_url"] = .string(android) }
        // The label is the link itself: the words around the QR code are in the template.
        if platform == .desktop, let symbol = try? QRCode(encoding: universalLink) {
            values["qr_svg"] = .string(symbol.svg(label: universalLink))
        }
        return values
    }
}
