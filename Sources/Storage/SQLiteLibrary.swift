internal import CSQLite

/// The SQLite library this process runs on, and whether it has the fix for the WAL-reset race
/// (3.51.3, backported to 3.50.7 and 3.44.6): before it, a checkpoint that runs while another
/// connection's commit starts the log over can corrupt the file. Tollgate's checkpoints never
/// overlap a commit of its own process, nor, but for one case, of another Tollgate process
/// (`Checkpointer`); another program writing the file can still meet the race.
public enum SQLiteLibrary {
    /// The version, as SQLite spells it ("3.40.1").
    public static var version: String { String(cString: sqlite3_libversion()) }

    /// Whether `number` (SQLite's X*1000000 + Y*1000 + Z) has the fix.
    public static func hasWALResetFix(_ number: Int32) -> Bool {
        switch number {
        case 3_051_003...: true
        case 3_050_007..<3_051_000, 3_044_006..<3_045_000: true
        default: false
        }
    }

    /// Whether the library this process runs on has the fix.
    public static var hasWALResetFix: Bool { hasWALResetFix(sqlite3_libversion_number()) }
}
