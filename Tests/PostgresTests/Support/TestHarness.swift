/// A test-harness failure (a tool missing or failing), not a failure of the code under test.
struct HarnessError: Error, CustomStringConvertible {
    let description: String
}
