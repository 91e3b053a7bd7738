import Domain
import Testing

@Suite("The memory of recent repeat redemptions")
struct RecentRepeatsTests {
    @Test("Remembers a code per app user, and forgets on request")
    func rememberAndForget() {
        let memory = RecentRepeats(capacity: 16)
        memory.remember(codeHash: "h1", appUserID: "u1", codeID: "code_1")
        #expect(memory.codeID(codeHash: "h1", appUserID: "u1") == "code_1")
        #expect(memory.codeID(codeHash: "h1", appUserID: "u2") == nil, "another app user's retry is not a repeat of this one")
        #expect(memory.codeID(codeHash: "h2", appUserID: "u1") == nil)
        memory.forget(codeHash: "h1", appUserID: "u1")
        #expect(memory.codeID(codeHash: "h1", appUserID: "u1") == nil)
        #expect(memory.count == 0)
    }

    @Test("Stays within its capacity; entries in use outlive a flood of new ones")
    func bounded() {
        let memory = RecentRepeats(capacity: 100)
        memory.remember(codeHash: "hot", appUserID: "u", codeID: "code_hot")
        for index in 0..<1_000 {
            memory.remember(codeHash: "h\(index)", appUserID: "u", codeID: "code_\(index)")
            #expect(memory.count <= 100)
            // A retry of the hot code every 20 new entries keeps it (each generation holds 50).
            if index % 20 == 0 { #expect(memory.codeID(codeHash: "hot", appUserID: "u") == "code_hot") }
        }
        #expect(memory.codeID(codeHash: "hot", appUserID: "u") == "code_hot")
        #expect(memory.codeID(codeHash: "h0", appUserID: "u") == nil, "the oldest unused entries went first")
        #expect(memory.codeID(codeHash: "h999", appUserID: "u") == "code_999")
        #expect(memory.count >= 50, "the newer half is kept")
    }
}
