/// The visitor's platform as its User-Agent says, to pick store badges and whether to show a
/// QR code (desktop only).
enum ClientPlatform: String, Sendable {
    case iOS = "ios"
    case android
    case desktop

    init(userAgent: String?) {
        let agent = (userAgent ?? "").lowercased()
        if agent.contains("iphone") || agent.contains("ipad") || agent.contains("ipod") {
            self = .iOS
        } else if agent.contains("android") {
            self = .android
        } else {
            self = .desktop
        }
    }
}
