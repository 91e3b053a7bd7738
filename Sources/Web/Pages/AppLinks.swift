import Crypto
import Domain
import QRCode
import Templating

/// The ways back into the app for a code: the custom-scheme deeplink, the universal link,
/// the store links for the visitor's platform, and — on desktop — a QR code of the
/// universal link to scan with the phone.
struct AppLinks {
    let services: AppServices
    let code: RedemptionCode

    var universalLink: String { services.url("/redeem/" + code.display) }

    var deeplink: String? {
        let scheme = services.config.app.scheme
        return scheme.isEmpty ? nil : "\(scheme)://redeem?code=\(code.display)"
    }

    /// Template values shared by the success and redeem pages.
    func values(for platform: ClientPlatform) -> [String: TemplateValue] {
        let ios = services.config.app.ios.appStoreURL
        let android = services.config.app.android.playStoreURL
        var values: [String: TemplateValue] = [
            "code": .string(code.display),
            "code_groups": .list(code.display.split(separator: "-").map { .string(String($0)) }),
            "universal_link": .string(universalLink),
            "platform": .string(platform.rawValue),
            "is_desktop": .bool(platform == .desktop),
        ]
        if let deeplink { values["deeplink"] = .string(deeplink) }
        if let ios, platform != .android { values["app_store_url"] = .string(ios) }
        if let android, platform != .iOS { values["play_store_url"] = .string(android) }
        if platform == .desktop, let symbol = try? QRCode(encoding: universalLink) {
            values["qr_svg"] = .string(symbol.svg(label: "QR code of the link that opens \(services.config.app.name) with your code"))
        }
        return values
    }
}
