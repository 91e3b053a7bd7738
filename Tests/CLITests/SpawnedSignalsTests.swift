import Foundation
import TestSupport
import Testing

/// The tests' children start as a shell would start them. The threads that spawn them (Dispatch's
/// and the test runner's) block most signals, and a child inherits that mask: a SIGTERM stayed
/// pending for ever, `terminate()` left the child running (the docs' Python event receiver
/// outlived every run), and `tollgate serve` was only ever tested with its signals blocked, not
/// as a service manager starts it.
@Suite("Spawned children: no signal blocked, every default action")
struct SpawnedSignalsTests {
    @Test("SIGTERM ends a child at once; its mask of blocked signals is empty")
    func sigtermEndsAChild() async throws {
        let mask = try SpawnedProcess("/bin/sh", ["-c", "grep '^SigBlk' /proc/self/status"], standardOutput: .pipe, standardError: .null)
        let output = try #require(mask.standardOutput).readDataToEndOfFile()
        _ = await offPool { mask.waitForExit() }
        #expect(String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "SigBlk:\t0000000000000000")

        let sleeper = try SpawnedProcess("/bin/sleep", ["5"], standardOutput: .null, standardError: .null)
        sleeper.send(SIGTERM)
        let outcome = await offPool { sleeper.waitForExit() }
        // With SIGTERM blocked, sleep ran its 5 s out and exited 0.
        #expect(outcome.bySignal && outcome.status == SIGTERM, "sleep ended with \(outcome)")
    }
}
