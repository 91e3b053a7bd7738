import Domain
import HTTPCore
import HTTPRouting
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
/// success page's first action on iOS is the universal link (API.md: it opens the app where iOS
/// hands it over, else the landing `/redeem/CODE`, which tries the custom scheme and offers the
/// App Store); the landing itself uses the custom scheme. On Android an `intent://` link opens the
/// app or, when it is not installed, `S.browser_fallback_url`: its Google Play listing with
/// `referrer=tollgate_code%3D<CODE>`, so the code survives installation (the app reads it with
/// the Play Install Referrer API at first launch). Desktop shows the QR code instead.
struct AppLinks {
    let links: Links
    let app: AppIdentity
    let code: RedemptionCode

    var universalLink: String { links.url("/redeem/" + code.display) }

    var deeplink: String? { links.app("redeem?code=\(code.display)") }

    /// The Play listing with the code as its install referrer (`referrer=tollgate_code%3D<CODE>`).
    var playStoreWithReferrer: String? {
        guard let store = app.android.playStoreURL, !store.isEmpty else { return nil }
        return store + (store.contains("?") ? "&" : "?") + "referrer=" + FormURLEncoding.encode("tollgate_code=" + code.display)
    }

    /// The Android intent link: the app when installed, else Chrome opens `S.browser_fallback_url`
    /// (the Play listing with the code as install referrer), or the Play listing of the package.
    var androidIntent: String? {
        let scheme = app.scheme
        guard !scheme.isEmpty, let package = app.android.packageName, !package.isEmpty else { return nil }
        let fallback = playStoreWithReferrer.map { ";S.browser_fallback_url=" + FormURLEncoding.encode($0) } ?? ""
        return "intent://redeem?code=\(code.display)#Intent;scheme=\(scheme);package=\(package)\(fallback);end"
    }

    /// The "Open" button's target on `platform`; nil on desktop. On iOS the success page leads with
    /// the universal link, the landing (`landing`: it is that link) with the custom scheme.
    func openLink(for platform: ClientPlatform, landing: Bool) -> String? {
        switch platform {
        case .iOS: landing ? deeplink : universalLink
        case .android: androidIntent ?? deeplink
        case .desktop: nil
        }
    }

    /// What a page opens by itself on a phone, once: the success page its "Open" button's target
    /// (iOS: the universal link, which iOS hands to the app where it can and else loads the
    /// `/redeem/CODE` landing, a page with the code; Android: the intent, whose fallback is Google
    /// Play with the code as install referrer); the landing the custom-scheme deeplink. Nil on desktop.
    func autoOpenLink(for platform: ClientPlatform, landing: Bool) -> String? {
        guard platform != .desktop else { return nil }
        return landing ? deeplink : openLink(for: platform, landing: false)
    }

    /// Template values shared by the success and redeem pages (see the comment at the top of
    /// `templates/success.html`). `autoOpen` adds `auto_open`, the link app.js follows once per tab
    /// on a phone (`autoOpenLink`); `landing`: the page is the universal link's own (`/redeem/CODE`).
    func values(for platform: ClientPlatform, autoOpen: Bool = false, landing: Bool = false) -> [String: TemplateValue] {
        let ios = app.ios.appStoreURL
        let android = app.android.playStoreURL
        var values: [String: TemplateValue] = [
            "code": .string(code.display),
            "code_groups": .list(code.display.split(separator: "-").map { .string(String($0)) }),
            "universal_link": .string(universalLink),
            "platform": .string(platform.rawValue),
            "is_ios": .bool(platform == .iOS),
            "is_android": .bool(platform == .android),
            "is_desktop": .bool(platform == .desktop)
        ]
        if let deeplink { values["deeplink"] = .string(deeplink) }
        if let open = openLink(for: platform, landing: landing) { values["open_link"] = .string(open) }
        if autoOpen, let target = autoOpenLink(for: platform, landing: landing) { values["auto_open"] = .string(target) }
        if let ios, platform != .android { values["app_store_url"] = .string(ios) }
        if let android, platform != .iOS { values["play_store_url"] = .string(playStoreWithReferrer ?? android) }
        // The label is the link itself: the words around the QR code are in the template.
        if platform == .desktop, let symbol = try? QRCode(encoding: universalLink) {
            values["qr_svg"] = .string(symbol.svg(label: universalLink))
        }
        return values
    }
}
