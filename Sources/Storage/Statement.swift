internal import CSQLite

/// A prepared statement owned by one `SQLiteConnection`'s cache; finalized when released.
/// Not Sendable: it is only used on its connection's thread.
final class Statement {
    let handle: OpaquePointer
    /// The column names of the result, made on first use and reused while cached.
    var layout: RowLayout?

    init(handle: OpaquePointer) {
        self.handle = handle
    }

    /// Makes the statement ready for its next use. The return code of `sqlite3_reset` repeats the
    /// last `sqlite3_step` error, which the caller has already reported, so it is not checked here.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    deinit {
        sqlite3_finalize(handle)
    }
}
