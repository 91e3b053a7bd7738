import Crypto
import Foundation

/// The Apple root certificates Tollgate trusts for App Store signed data, and loading the
/// configured ones (`apple.root_certificates`).
///
/// Apple Root CA - G3 (Apple's public root, from https://www.apple.com/certificateauthority/) is
/// embedded here so a deployment works without shipping a certificate file: the repository's
/// top level takes no data folders. SHA-256 fingerprint
/// 63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:7C:4F:5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79.
public enum AppleRootCertificates {
    /// The file name of the configuration's default root path (`certs/AppleRootCA-G3.cer`). A
    /// configured path with this file name that does not exist means the embedded G3.
    public static let defaultFileName = "AppleRootCA-G3.cer"

    /// The SHA-256 fingerprint of Apple Root CA - G3, lowercase hex.
    public static let appleRootCAG3SHA256 = "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179"

    /// The DER of Apple Root CA - G3 in standard base64.
    static let appleRootCAG3Base64 = [
        "MIICQzCCAcmgAwIBAgIILcX8iNLFS5UwCgYIKoZIzj0EAwMwZzEbMBkGA1UEAwwSQXBwbGUgUm9vdCBDQSAtIEczMSYwJAYD",
        "VQQLDB1BcHBsZSBDZXJ0aWZpY2F0aW9uIEF1dGhvcml0eTETMBEGA1UECgwKQXBwbGUgSW5jLjELMAkGA1UEBhMCVVMwHhcN",
        "MTQwNDMwMTgxOTA2WhcNMzkwNDMwMTgxOTA2WjBnMRswGQYDVQQDDBJBcHBsZSBSb290IENBIC0gRzMxJjAkBgNVBAsMHUFw",
        "cGxlIENlcnRpZmljYXRpb24gQXV0aG9yaXR5MRMwEQYDVQQKDApBcHBsZSBJbmMuMQswCQYDVQQGEwJVUzB2MBAGByqGSM49",
        "AgEGBSuBBAAiA2IABJjpLz1AcqTtkyJygRMc3RCV8cWjTnHcFBbZDuWmBSp3ZHtfTjjTuxxEtX/1H7YyYl3J6YRbTzBPEVoA",
        "/VhYDKX1DyxNB0cTddqXl5dvMVztK517IDvYuVTZXpmkOlEKMaNCMEAwHQYDVR0OBBYEFLuw3qFYM4iapIqZ3r6966/ayySr",
        "MA8GA1UdEwEB/wQFMAMBAf8wDgYDVR0PAQH/BAQDAgEGMAoGCCqGSM49BAMDA2gAMGUCMQCD6cHEFl4aXTQY2e3v9GwOAEZL",
        "uN+yRhHFD/3meoyhpmvOwgPUnPWTxnS4at+qIxUCMG1mihDK1A3UT82NQz60imOlM27jbdoXt2QfyFMm+YhidDkLF1vLUagM",
        "6BgD56KyKA=="
    ].joined()

    /// Apple Root CA - G3, parsed from the embedded DER.
    /// - Throws: `CryptoError` only if the embedded bytes were damaged.
    public static var appleRootCAG3: Certificate {
        get throws { try Certificate(der: Base64.decode(appleRootCAG3Base64)) }
    }

    /// Reads each configured root: a DER file, or a PEM file with one or more certificates.
    ///
    /// A path whose file name is `AppleRootCA-G3.cer` (the configuration default) and that does
    /// not exist yields the embedded Apple Root CA - G3; any other missing file is an error.
    /// - Throws: `AppStoreError.configuration` for an unreadable file, a file that is not a
    ///   certificate, or an empty list.
    public static func load(paths: [String]) throws -> [Certificate] {
        guard !paths.isEmpty else {
            throw AppStoreError.configuration(.init("apple.root_certificates is empty; list at least one root certificate file"))
        }
        var certificates: [Certificate] = []
        for path in paths {
            let url = URL(fileURLWithPath: path)
            if !FileManager.default.fileExists(atPath: path), url.lastPathComponent == defaultFileName {
                do { certificates.append(try appleRootCAG3) } catch {
                    throw AppStoreError.configuration(.init("the embedded Apple Root CA - G3 cannot be parsed: \(error)"))
                }
                continue
            }
            let bytes: [UInt8]
            do { bytes = Array(try Data(contentsOf: url)) } catch {
                throw AppStoreError.configuration(.init("cannot read root certificate file \(path)"))
            }
            certificates += try parse(bytes, path: path)
        }
        return certificates
    }

    /// One DER certificate, or every "CERTIFICATE" block of a PEM text.
    private static func parse(_ bytes: [UInt8], path: String) throws -> [Certificate] {
        let begin = "-----BEGIN CERTIFICATE-----"
        let end = "-----END CERTIFICATE-----"
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.contains(begin) else {
            do { return [try Certificate(der: bytes)] } catch {
                throw AppStoreError.configuration(.init("\(path) is neither a DER nor a PEM certificate"))
            }
        }
        var certificates: [Certificate] = []
        var rest = Substring(text)
        while let start = rest.range(of: begin) {
            guard let stop = rest.range(of: end, range: start.upperBound..<rest.endIndex) else {
                throw AppStoreError.configuration(.init("\(path) has a PEM certificate without its END line"))
            }
            do { certificates.append(try Certificate(pem: String(rest[start.lowerBound..<stop.upperBound]))) } catch {
                throw AppStoreError.configuration(.init("\(path) has a PEM block that is not a certificate"))
            }
            rest = rest[stop.upperBound...]
        }
        return certificates
    }
}
