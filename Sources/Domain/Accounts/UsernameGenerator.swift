import Crypto

/// Readable generated usernames for auto-created accounts: `calm-otter-4821`. About 2^22
/// combinations; uniqueness is enforced by the database and a collision just draws again.
public enum UsernameGenerator {
    static let adjectives = [
        "amber", "brave", "bright", "calm", "clever", "cosmic", "crisp", "eager", "fancy", "gentle", "golden", "happy",
        "jolly", "keen", "lively", "lucky", "mellow", "merry", "nimble", "noble", "quiet", "rapid", "sunny", "swift",
        "tidy", "vivid", "warm", "wise", "witty", "zesty", "bold", "cheery"
    ]
    static let animals = [
        "badger", "beaver", "falcon", "ferret", "finch", "fox", "gecko", "heron", "ibis", "koala", "lemur", "lynx",
        "marten", "moose", "newt", "otter", "owl", "panda", "puffin", "quail", "raven", "robin", "seal", "sparrow",
        "stoat", "swan", "tapir", "tiger", "toucan", "walrus", "wombat", "yak"
    ]

    /// - Throws: `CryptoError` when the random source fails.
    public static func make() throws -> String {
        let bytes = try SecureRandom.bytes(count: 4)
        let number = (Int(bytes[2]) << 8 | Int(bytes[3])) % 10_000
        let digits = String(number)
        return adjectives[Int(bytes[0]) % adjectives.count] + "-" + animals[Int(bytes[1]) % animals.count] + "-"
            + String(repeating: "0", count: 4 - digits.count) + digits
    }
}
