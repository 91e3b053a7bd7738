extension Duration {
    /// The duration in whole milliseconds (rounded down, at least 0).
    var milliseconds: Int {
        let parts = components
        return max(0, Int(clamping: parts.seconds) &* 1000 &+ Int(parts.attoseconds / 1_000_000_000_000_000))
    }
}
