import Foundation
import Testing
import TollgateClient

/// The code an Android install carries through Google Play (`referrer=tollgate_code%3D<CODE>` on
/// the success page's fallback), as the Play Install Referrer API hands it to the app.
@Suite("Install referrer")
struct InstallReferrerTests {
    @Test(
        "The referrer's tollgate_code, normalized, whatever else it carries",
        arguments: [
            ("tollgate_code=K7P2-9QXM-4D8R-2WTF", "K7P2-9QXM-4D8R-2WTF"),
            ("utm_source=google-play&utm_medium=organic&tollgate_code=k7p2-9qxm-4d8r-2wtf", "K7P2-9QXM-4D8R-2WTF"),
            ("tollgate_code%3DK7P2-9QXM-4D8R-2WTF", "K7P2-9QXM-4D8R-2WTF"),
            ("tollgate_code=K7P2%209QXM%204D8R%202WTF&utm_campaign=x", "K7P2-9QXM-4D8R-2WTF")
        ])
    func code(referrer: String, code: String) {
        #expect(TollgateLink.code(fromInstallReferrer: referrer) == code)
    }

    @Test(
        "A referrer without a code gives nil",
        arguments: [
            "utm_source=google-play&utm_medium=organic", "", "tollgate_code=", "tollgate_code=%2F%2F", "code=K7P2-9QXM-4D8R-2WTF"
        ])
    func none(referrer: String) {
        #expect(TollgateLink.code(fromInstallReferrer: referrer) == nil)
    }
}
