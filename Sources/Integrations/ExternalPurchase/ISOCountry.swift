/// An ISO 3166-1 country: its alpha-2 code (Google's `regionCode`) and alpha-3 code (Apple's
/// `taxCountry`, StoreKit's `Storefront.countryCode`), for the external purchase reports.
///
/// The table holds the 249 officially assigned codes of ISO 3166-1 (as the Debian `iso-codes`
/// package lists them); user-assigned codes (`XK`, `AA`...) are refused.
public struct ISOCountry: Sendable, Hashable, CustomStringConvertible {
    /// The two-letter code (`DE`).
    public let alpha2: String
    /// The three-letter code (`DEU`).
    public let alpha3: String

    /// The country with this alpha-2 or alpha-3 code (upper case), or nil for any other text.
    public init?(code: String) {
        guard let entry = code.utf8.count == 2 ? Self.byAlpha2[code] : code.utf8.count == 3 ? Self.byAlpha3[code] : nil else {
            return nil
        }
        self = entry
    }

    private init(alpha2: String, alpha3: String) {
        self.alpha2 = alpha2
        self.alpha3 = alpha3
    }

    public var description: String { alpha3 }

    /// Every assigned country.
    public static let all: [ISOCountry] = table.flatMap { row in
        row.split(separator: " ").map { ISOCountry(alpha2: String($0.prefix(2)), alpha3: String($0.suffix(3))) }
    }

    private static let byAlpha2 = Dictionary(uniqueKeysWithValues: all.map { ($0.alpha2, $0) })
    private static let byAlpha3 = Dictionary(uniqueKeysWithValues: all.map { ($0.alpha3, $0) })

    /// Alpha-2 followed by alpha-3, sorted by alpha-2.
    private static let table = [
        "ADAND AEARE AFAFG AGATG AIAIA ALALB AMARM AOAGO AQATA ARARG ASASM ATAUT AUAUS AWABW AXALA AZAZE",
        "BABIH BBBRB BDBGD BEBEL BFBFA BGBGR BHBHR BIBDI BJBEN BLBLM BMBMU BNBRN BOBOL BQBES BRBRA BSBHS",
        "BTBTN BVBVT BWBWA BYBLR BZBLZ CACAN CCCCK CDCOD CFCAF CGCOG CHCHE CICIV CKCOK CLCHL CMCMR CNCHN",
        "COCOL CRCRI CUCUB CVCPV CWCUW CXCXR CYCYP CZCZE DEDEU DJDJI DKDNK DMDMA DODOM DZDZA ECECU EEEST",
        "EGEGY EHESH ERERI ESESP ETETH FIFIN FJFJI FKFLK FMFSM FOFRO FRFRA GAGAB GBGBR GDGRD GEGEO GFGUF",
        "GGGGY GHGHA GIGIB GLGRL GMGMB GNGIN GPGLP GQGNQ GRGRC GSSGS GTGTM GUGUM GWGNB GYGUY HKHKG HMHMD",
        "HNHND HRHRV HTHTI HUHUN IDIDN IEIRL ILISR IMIMN ININD IOIOT IQIRQ IRIRN ISISL ITITA JEJEY JMJAM",
        "JOJOR JPJPN KEKEN KGKGZ KHKHM KIKIR KMCOM KNKNA KPPRK KRKOR KWKWT KYCYM KZKAZ LALAO LBLBN LCLCA",
        "LILIE LKLKA LRLBR LSLSO LTLTU LULUX LVLVA LYLBY MAMAR MCMCO MDMDA MEMNE MFMAF MGMDG MHMHL MKMKD",
        "MLMLI MMMMR MNMNG MOMAC MPMNP MQMTQ MRMRT MSMSR MTMLT MUMUS MVMDV MWMWI MXMEX MYMYS MZMOZ NANAM",
        "NCNCL NENER NFNFK NGNGA NINIC NLNLD NONOR NPNPL NRNRU NUNIU NZNZL OMOMN PAPAN PEPER PFPYF PGPNG",
        "PHPHL PKPAK PLPOL PMSPM PNPCN PRPRI PSPSE PTPRT PWPLW PYPRY QAQAT REREU ROROU RSSRB RURUS RWRWA",
        "SASAU SBSLB SCSYC SDSDN SESWE SGSGP SHSHN SISVN SJSJM SKSVK SLSLE SMSMR SNSEN SOSOM SRSUR SSSSD",
        "STSTP SVSLV SXSXM SYSYR SZSWZ TCTCA TDTCD TFATF TGTGO THTHA TJTJK TKTKL TLTLS TMTKM TNTUN TOTON",
        "TRTUR TTTTO TVTUV TWTWN TZTZA UAUKR UGUGA UMUMI USUSA UYURY UZUZB VAVAT VCVCT VEVEN VGVGB VIVIR",
        "VNVNM VUVUT WFWLF WSWSM YEYEM YTMYT ZAZAF ZMZMB ZWZWE"
    ]
}
