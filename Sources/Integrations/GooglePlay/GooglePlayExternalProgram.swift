/// The programme fields of a Google Play external transaction (the `ExternalTransaction` schema
/// of androidpublisher.v3.json): `transactionProgramCode` (Play Media Experience Program; not
/// allowed with external offers) and one of `externalContentLinkDetails` (the external content
/// links programme) or `externalOfferDetails` (the external offers programme).
public struct GooglePlayExternalProgram: Sendable, Equatable {
    /// What the link led to (`linkType`).
    public enum LinkType: String, Sendable, Equatable, CaseIterable {
        /// An offer to buy digital content.
        case digitalContentOffer = "LINK_TO_DIGITAL_CONTENT_OFFER"
        /// An app install.
        case appDownload = "LINK_TO_APP_DOWNLOAD"
    }

    /// The category of a downloaded app (`externalAppCategory` / `installedAppCategory`).
    public enum AppCategory: String, Sendable, Equatable, CaseIterable {
        case app = "APP"
        case game = "GAME"
    }

    /// The programme's detail object.
    public enum Details: Sendable, Equatable {
        /// `externalContentLinkDetails` (`linkType` required; the package and category only for app installs).
        case externalContentLink(linkType: LinkType, installedAppPackage: String?, appCategory: AppCategory?)
        /// `externalOfferDetails` (every field optional; `installedAppPackage` required for app downloads).
        case externalOffer(
            linkType: LinkType?, installedAppPackage: String?, appCategory: AppCategory?, appDownloadEventExternalTransactionID: String?)
    }

    /// `transactionProgramCode`.
    public let transactionProgramCode: Int32?
    /// The detail object, if the programme needs one.
    public let details: Details?

    /// No programme fields (the alternative billing programmes need none).
    public static let none = GooglePlayExternalProgram(unchecked: nil, nil)

    /// Programme fields.
    /// - Throws: `UpstreamError.invalidReport` for a program code with external offers
    ///   (the schema forbids it) or an app download without `installedAppPackage`.
    public init(transactionProgramCode: Int32? = nil, details: Details? = nil) throws {
        switch details {
        case .externalOffer(let linkType, let package, _, _):
            guard transactionProgramCode == nil else {
                throw UpstreamError.invalidReport("transactionProgramCode cannot be used for external offers transactions")
            }
            if linkType == .appDownload, package?.isEmpty ?? true {
                throw UpstreamError.invalidReport("an external offer app download needs installedAppPackage")
            }
        case .externalContentLink(let linkType, let package, _):
            if linkType == .appDownload, package?.isEmpty ?? true {
                throw UpstreamError.invalidReport("an external content link app download needs installedAppPackage")
            }
        case nil:
            break
        }
        self.init(unchecked: transactionProgramCode, details)
    }

    private init(unchecked code: Int32?, _ details: Details?) {
        transactionProgramCode = code
        self.details = details
    }
}
