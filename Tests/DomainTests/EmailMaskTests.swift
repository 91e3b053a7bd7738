import Domain
import Testing

@Suite("Masked emails")
struct EmailMaskTests {
    @Test(
        "As API.md writes them",
        arguments: [
            ("john.doe@example.co.uk", "j•••@e•••.uk"),
            ("a@b.c", "a•••@b•••.c"),
            ("jane@example.com", "j•••@e•••.com"),
            ("x@localhost", "x•••@l•••")
        ])
    func masks(email: String, masked: String) {
        #expect(EmailMask.mask(email) == masked)
    }
}
