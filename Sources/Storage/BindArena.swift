/// One connection's buffer for the text and blob arguments of the statement being bound. They
/// are copied here and bound with `SQLITE_STATIC`, instead of `SQLITE_TRANSIENT`, under which
/// SQLite copied each into memory of its own: a `malloc` and a `free` per argument (a repeat
/// redemption binds 12). The space is reused by the next statement: `Statement.reset` clears the
/// bindings first, and a statement is always reset before the connection binds another (no
/// statement of a connection runs while another is bound). An argument that does not fit in
/// what is left is not copied here, and SQLite copies it as before.
final class BindArena {
    static let capacity = 4096
    private let base = UnsafeMutableRawPointer.allocate(byteCount: BindArena.capacity, alignment: 8)
    private var used = 0

    deinit { base.deallocate() }

    /// Makes the whole buffer free again; copies made before stop being valid.
    func restart() { used = 0 }

    /// A copy of `bytes` valid until the next `restart`, or nil when it does not fit (or is empty).
    func copy(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawPointer? {
        guard let source = bytes.baseAddress, !bytes.isEmpty, bytes.count <= Self.capacity - used else { return nil }
        let destination = base + used
        destination.copyMemory(from: source, byteCount: bytes.count)
        used += bytes.count
        return UnsafeRawPointer(destination)
    }
}
