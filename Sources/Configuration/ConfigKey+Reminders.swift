import JSON

extension ConfigKey {
    /// An array of increasing positive integers that may stay unset (`redemption.reminders`:
    /// seconds after payment); `[]` is allowed and means none. Anything else stops start-up
    /// naming the key.
    static func increasingIntegers(_ path: String, _ keyPath: Path<[Int]?>) -> ConfigKey {
        ConfigKey(
            path: path, kind: .increasingIntegers, isSecret: false, isRequired: false,
            decode: { value, config in
                let problem = KeyProblem(
                    path: path,
                    message:
                        "expected a list of increasing positive numbers of seconds like [3600, 86400] ([] for none), got \(value.shortDescription)")
                guard case .array(let items) = value else { return [problem] }
                var numbers: [Int] = []
                for item in items {
                    guard case .integer(let wide) = item, let number = Int(exactly: wide), number > 0, number <= 31_536_000,
                        number > (numbers.last ?? 0)
                    else { return [problem] }
                    numbers.append(number)
                }
                config[keyPath: keyPath] = numbers
                return []
            },
            encode: { config in
                config[keyPath: keyPath].map { .array($0.map { .integer(Int64($0)) }) } ?? .null
            })
    }
}

extension TollgateConfig.Redemption {
    /// The reminders' offsets in effect: as configured, else `[3600, 86400]` in redeem mode and
    /// none in redirect mode (API.md: reminders are off in redirect mode unless configured).
    public var effectiveReminders: [Int] {
        reminders ?? (mode == .redirect ? [] : [3600, 86_400])
    }
}
