/// What the strict validator tells its caller as it reads, in document order: containers
/// opening and closing, object keys and scalar values (already checked, strings unescaped).
protocol JSONEvents {
    /// Whether the validator collects key and value strings and number texts to pass on.
    static var wantsValues: Bool { get }
    mutating func beginContainer(isObject: Bool)
    mutating func endContainer()
    mutating func key(_ key: String)
    mutating func string(_ text: String)
    mutating func number(_ text: UnsafeBufferPointer<UInt8>)
    /// `true`, `false` or `null`.
    mutating func literal(_ value: JSONValue)
}

/// Validation only (`StrictJSON.validate`, the request path): every event is ignored, and the
/// validator, specialized for it, does no work for them.
struct NoEvents: JSONEvents {
    static var wantsValues: Bool { false }
    @inline(__always) mutating func beginContainer(isObject: Bool) {}
    @inline(__always) mutating func endContainer() {}
    @inline(__always) mutating func key(_ key: String) {}
    @inline(__always) mutating func string(_ text: String) {}
    @inline(__always) mutating func number(_ text: UnsafeBufferPointer<UInt8>) {}
    @inline(__always) mutating func literal(_ value: JSONValue) {}
}
