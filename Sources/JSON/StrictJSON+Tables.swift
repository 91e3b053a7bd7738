extension StrictJSON {
    /// The open containers as bits of one word (1 for an object), so nesting costs no allocation.
    struct ContainerStack {
        static let capacity = 64
        private var bits: UInt64 = 0
        private(set) var count = 0

        var last: UInt8? {
            guard count > 0 else { return nil }
            return bits >> UInt64(count - 1) & 1 == 1 ? UInt8(ascii: "{") : UInt8(ascii: "[")
        }

        mutating func append(_ container: UInt8) {
            precondition(count < Self.capacity, "StrictJSON nests at most 64 levels")
            if container == UInt8(ascii: "{") { bits |= 1 << UInt64(count) } else { bits &= ~(1 << UInt64(count)) }
            count += 1
        }

        mutating func removeLast() {
            count -= 1
        }
    }

    /// The keys of the open objects, for duplicate checks: references into the input (escaped
    /// keys, rare, as their own unescaped bytes) in one flat list where each open object starts
    /// with a mark. An object compares a new key with its earlier ones directly while it has
    /// few, and through a hash set once it has many: typical bodies cost one allocation, and a
    /// huge object is still checked in linear time.
    struct KeyTable {
        enum Key {
            case none
            case input(start: Int, end: Int)
            case escaped(Int)
            /// The start of an object; `previous` is where the enclosing object's keys begin.
            case mark(previous: Int)
        }

        /// Past this many keys, an object gets a hash set.
        static let linearLimit = 16

        private var list: [Key] = []
        /// Index in `list` of the innermost object's first key.
        private var first = 0
        /// Hash sets of the open objects that outgrew `linearLimit`, by their first key's index.
        private var sets: [Int: Set<[UInt8]>] = [:]
        /// Unescaped bytes of the keys that had escapes.
        private var escapedKeys: [[UInt8]] = []
        /// The escaped key being read.
        private var building: [UInt8] = []

        mutating func openObject() {
            if list.capacity == 0 { list.reserveCapacity(Self.linearLimit) }
            list.append(.mark(previous: first))
            first = list.count
        }

        mutating func closeObject() {
            guard case .mark(let previous) = list[first - 1] else { preconditionFailure("unbalanced KeyTable") }
            if !sets.isEmpty { sets[first] = nil }
            list.removeLast(list.count - (first - 1))
            first = previous
        }

        /// Starts an escaped key with its plain prefix.
        mutating func beginEscaped(copying input: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
            building = Array(UnsafeBufferPointer(rebasing: input[range]))
        }

        mutating func appendEscaped(_ scalar: Unicode.Scalar) {
            building.append(contentsOf: scalar.utf8)
        }

        mutating func appendEscaped(_ input: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
            building.append(contentsOf: UnsafeBufferPointer(rebasing: input[range]))
        }

        mutating func finishEscaped() -> Key {
            escapedKeys.append(building)
            return .escaped(escapedKeys.count - 1)
        }

        /// Records `key` in the innermost object; false when that object already has it.
        mutating func insert(_ key: Key, input: UnsafeBufferPointer<UInt8>) -> Bool {
            if list.count - first < Self.linearLimit {
                for index in first..<list.count where equal(list[index], key, input: input) { return false }
            } else {
                if sets[first] == nil {
                    sets[first] = Set(list[first...].map { withBytes(of: $0, input: input, Array.init) })
                }
                guard sets[first]!.insert(withBytes(of: key, input: input, Array.init)).inserted else { return false }
            }
            list.append(key)
            return true
        }

        private func equal(_ a: Key, _ b: Key, input: UnsafeBufferPointer<UInt8>) -> Bool {
            if case .input(let aStart, let aEnd) = a, case .input(let bStart, let bEnd) = b, aEnd - aStart != bEnd - bStart {
                return false
            }
            return withBytes(of: a, input: input) { x in withBytes(of: b, input: input) { y in x.elementsEqual(y) } }
        }

        /// Calls `body` with the bytes `key` refers to.
        func withBytes<R>(of key: Key, input: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            switch key {
            case .none, .mark: return body(UnsafeBufferPointer(start: nil, count: 0))
            case .input(let start, let end): return body(UnsafeBufferPointer(rebasing: input[start..<end]))
            case .escaped(let index): return escapedKeys[index].withUnsafeBufferPointer(body)
            }
        }
    }
}
