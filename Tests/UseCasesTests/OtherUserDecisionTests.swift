import Domain
import Testing

/// The one function that applies `redemption.on_other_user`, for every kind of claim.
@Suite("Other-user policy")
struct OtherUserDecisionTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let policy: OtherUserPolicy
        let holder: String?
        let canSwitch: Bool
        let expected: OtherUserDecision
        var testDescription: String { "\(policy) holder=\(holder ?? "none") canSwitch=\(canSwitch)" }
    }

    static let rows: [Row] = [
        // Nobody holds it: every policy links it to the claimant.
        Row(policy: .switch, holder: nil, canSwitch: true, expected: .link),
        Row(policy: .transfer, holder: nil, canSwitch: true, expected: .link),
        Row(policy: .reject, holder: nil, canSwitch: false, expected: .link),
        // The claimant holds it already: nothing moves.
        Row(policy: .switch, holder: "me", canSwitch: true, expected: .keep),
        Row(policy: .transfer, holder: "me", canSwitch: true, expected: .keep),
        Row(policy: .reject, holder: "me", canSwitch: true, expected: .keep),
        // Someone else holds it.
        Row(policy: .switch, holder: "other", canSwitch: true, expected: .switchToHolder("other")),
        Row(policy: .switch, holder: "other", canSwitch: false, expected: .reject),
        Row(policy: .transfer, holder: "other", canSwitch: false, expected: .transfer),
        Row(policy: .transfer, holder: "other", canSwitch: true, expected: .transfer),
        Row(policy: .reject, holder: "other", canSwitch: true, expected: .reject)
    ]

    @Test("decides each policy for each holder", arguments: rows)
    func decides(_ row: Row) {
        #expect(row.policy.decide(holder: row.holder, claimant: "me", canSwitch: row.canSwitch) == row.expected)
    }
}

/// API.md's four-way table of accounts from in-app purchases.
@Suite("Store claim table")
struct StoreClaimPlanTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let signedIn: String?
        let holder: String?
        let hasEmail: Bool
        let proves: Bool
        let policy: OtherUserPolicy
        let expected: StoreClaimPlan
        var testDescription: String {
            "signedIn=\(signedIn ?? "no") holder=\(holder ?? "none") email=\(hasEmail) proves=\(proves) \(policy)"
        }
    }

    static let rows: [Row] = [
        // Signed in as A, no details: linked to A; B holds it → switch gives B's login, transfer moves it, reject refuses.
        Row(
            signedIn: "A", holder: nil, hasEmail: false, proves: false, policy: .switch,
            expected: .signedIn(account: "A", decision: .link, claimEmail: false)),
        Row(
            signedIn: "A", holder: "B", hasEmail: false, proves: false, policy: .switch,
            expected: .signedIn(account: "A", decision: .switchToHolder("B"), claimEmail: false)),
        Row(
            signedIn: "A", holder: "B", hasEmail: false, proves: true, policy: .transfer,
            expected: .signedIn(account: "A", decision: .transfer, claimEmail: false)),
        Row(
            signedIn: "A", holder: "B", hasEmail: false, proves: true, policy: .reject,
            expected: .signedIn(account: "A", decision: .reject, claimEmail: false)),
        // Signed in as A with an email: as above, and A takes the address.
        Row(
            signedIn: "A", holder: "A", hasEmail: true, proves: true, policy: .switch,
            expected: .signedIn(account: "A", decision: .keep, claimEmail: true)),
        // Not signed in, email: B holds it → B's login; B asks for the email (confirmed by mail, its
        // confirmed one kept until then) only when the claim proved B (issue 43 item 3).
        Row(signedIn: nil, holder: "B", hasEmail: true, proves: true, policy: .switch, expected: .holder("B", claimEmail: true)),
        Row(signedIn: nil, holder: "B", hasEmail: true, proves: false, policy: .switch, expected: .holder("B", claimEmail: false)),
        Row(signedIn: nil, holder: nil, hasEmail: true, proves: false, policy: .switch, expected: .createWithEmail),
        // Not signed in, no details.
        Row(signedIn: nil, holder: "B", hasEmail: false, proves: false, policy: .reject, expected: .holder("B", claimEmail: false)),
        Row(signedIn: nil, holder: nil, hasEmail: false, proves: false, policy: .switch, expected: .createAnonymous)
    ]

    @Test("plans each row of the table", arguments: rows)
    func plans(_ row: Row) {
        let plan = StoreClaimPlan.decide(
            signedIn: row.signedIn, holder: row.holder, hasEmail: row.hasEmail, claimProvesHolder: row.proves, policy: row.policy)
        #expect(plan == row.expected)
    }
}
