/// Where a purchase was made. The raw values are the ones API.md uses (`source`, `platform`).
public enum Platform: String, Sendable, Hashable, Codable, CaseIterable {
    case stripe
    case appStore = "app_store"
    case playStore = "play_store"
}
