import Foundation
import Testing
@testable import Configuration

/// `redemption.reminders`: increasing positive seconds after payment; `[]` off; unset: the
/// default in redeem mode and none in redirect mode; anything else stops start-up naming the key.
@Suite("redemption.reminders")
struct ConfigRemindersTests {
    @Test("Unset: [3600, 86400] in redeem mode, none in redirect mode; set, as given; [] is off")
    func defaults() throws {
        #expect(try load(json: Fixtures.json()).redemption.effectiveReminders == [3600, 86_400])
        let redirect = try load(json: Fixtures.json(["redemption": ["mode": "redirect", "redirect_urls": ["https://example.com/welcome"]]]))
        #expect(redirect.redemption.effectiveReminders == [])
        let configured = try load(
            json: Fixtures.json([
                "redemption": ["mode": "redirect", "redirect_urls": ["https://example.com/welcome"], "reminders": [600, 7200, 172_800]]
            ]))
        #expect(configured.redemption.effectiveReminders == [600, 7200, 172_800])
        #expect(try load(json: Fixtures.json(["redemption": ["reminders": [Int]()]])).redemption.effectiveReminders == [])
        #expect(
            try load(json: Fixtures.json(), environment: ["TOLLGATE_REDEMPTION_REMINDERS": "900, 3600"]).redemption.effectiveReminders == [900, 3600])
    }

    @Test(
        "Not a list of increasing positive numbers: start-up refuses, naming the key",
        arguments: [
            #"[86400, 3600]"#, #"[3600, 3600]"#, #"[0, 3600]"#, #"[-60]"#, #"["3600"]"#, #"3600"#, #"[1.5]"#, #"{"first": 3600}"#
        ])
    func refused(_ value: String) {
        let found = problems(json: String(Fixtures.json().dropLast()) + #", "redemption": {"reminders": \#(value)}}"#)
        #expect(problem("redemption.reminders", in: found)?.message.contains("increasing positive") == true, "\(found)")
    }
}
