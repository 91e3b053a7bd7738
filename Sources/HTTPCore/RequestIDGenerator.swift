import Synchronization

/// Generates request ids: 16 lowercase hex characters from a per-connection SplitMix64
/// stream seeded once from the system generator, so no system call is made per request.
/// Ids only need to be unique in logs, not unpredictable.
struct RequestIDGenerator {
    private var state: UInt64

    private static let processSeed = UInt64.random(in: .min ... .max)
    private static let counter = Atomic<UInt64>(0)

    init() {
        let sequence = RequestIDGenerator.counter.wrappingAdd(1, ordering: .relaxed).newValue
        state = RequestIDGenerator.processSeed ^ (sequence &* 0x9E37_79B9_7F4A_7C15)
    }

    mutating func next() -> String {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        mixed ^= mixed >> 31
        let value = mixed
        return String(unsafeUninitializedCapacity: 16) { buffer in
            let hex: StaticString = "0123456789abcdef"
            for index in 0..<16 {
                let nibble = Int((value >> UInt64(60 - index * 4)) & 0xF)
                buffer[index] = hex.utf8Start[nibble]
            }
            return 16
        }
    }
}
