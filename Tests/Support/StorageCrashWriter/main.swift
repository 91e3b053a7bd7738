// Test-only child process: writes batches to a database until it is killed.
// Each transaction inserts `batch` rows into `items` and bumps `counter.value` by `batch`,
// so after any crash `SELECT count(*) FROM items` must equal `counter.value`.
// Usage: StorageCrashWriter DATABASE_PATH
import Foundation
import Storage

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: StorageCrashWriter DATABASE_PATH\n".utf8))
    exit(64)
}
// Never outlive the test that started us: stop when the parent is gone (we were re-parented),
// and after five minutes anyway (not one: on a machine busy enough, the parent's task that kills
// us once slept past a minute, and finding us already exited it failed). Writing stops after `maxRows` (about ten seconds of writing) and the
// process then idles until it is killed: a parent slowed down by a loaded machine must not find
// a log of hundreds of megabytes to recover.
let parent = getppid()
let deadline = Date().addingTimeInterval(300)
let database = try SQLiteDatabase(path: CommandLine.arguments[1], readers: 1)
try database.writeSync { connection in
    try connection.executeScript(
        """
        CREATE TABLE IF NOT EXISTS items (id INTEGER PRIMARY KEY, payload TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS counter (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL);
        INSERT INTO counter (id, value) VALUES (1, 0) ON CONFLICT (id) DO NOTHING;
        """)
}
let batch = 50
let maxRows = 100_000
var written = 0
let payload = String(repeating: "x", count: 200)
var announced = false
while Date() < deadline && getppid() == parent {
    guard written < maxRows else {
        usleep(50_000)
        continue
    }
    try database.writeSync { connection in
        for _ in 0..<batch {
            try connection.execute("INSERT INTO items (payload) VALUES (?)", [payload])
        }
        try connection.execute("UPDATE counter SET value = value + ? WHERE id = 1", [batch])
    }
    written += batch
    if !announced {
        // Tell the parent that writing has started; it kills us some time later.
        FileHandle.standardOutput.write(Data("writing\n".utf8))
        announced = true
    }
}
