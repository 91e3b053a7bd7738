import Foundation
internal import COpenSSL

extension Certificate {
    /// Verifies `leaf` up to one of `roots` at time `date`, with `intermediates` as untrusted helpers.
    ///
    /// The `X509_STORE` holds only `roots` (never the system store); no strict-mode flag is set.
    /// - Returns: The number of certificates in the chain OpenSSL built (leaf and root included).
    /// - Throws: `CryptoError` of kind `.certificateExpired`, `.certificateNotYetValid`,
    ///   `.untrustedRoot`, `.certificateSignatureInvalid` or `.certificateChainInvalid`.
    public static func verifyChain(leaf: Certificate, intermediates: [Certificate], roots: [Certificate], at date: Date) throws -> Int {
        ERR_clear_error()
        guard let store = X509_STORE_new() else { throw CryptoError.openSSL("X509_STORE_new") }
        defer { X509_STORE_free(store) }
        for root in roots {
            guard X509_STORE_add_cert(store, root.pointer) == 1 else { throw CryptoError.openSSL("X509_STORE_add_cert") }
        }
        guard let untrusted = tollgate_sk_x509_new_null() else { throw CryptoError.openSSL("sk_X509_new_null") }
        defer { tollgate_sk_x509_free(untrusted) }
        for intermediate in intermediates {
            guard tollgate_sk_x509_push(untrusted, intermediate.pointer) > 0 else { throw CryptoError.openSSL("sk_X509_push") }
        }
        guard let context = X509_STORE_CTX_new() else { throw CryptoError.openSSL("X509_STORE_CTX_new") }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf.pointer, untrusted) == 1 else {
            throw CryptoError.openSSL("X509_STORE_CTX_init")
        }
        guard let parameters = X509_STORE_CTX_get0_param(context) else {
            throw CryptoError.openSSL("X509_STORE_CTX_get0_param")
        }
        X509_VERIFY_PARAM_set_time(parameters, time_t(date.timeIntervalSince1970.rounded(.down)))
        let result = X509_verify_cert(context)
        guard result == 1 else {
            let code = X509_STORE_CTX_get_error(context)
            let reason = String(cString: X509_verify_cert_error_string(Int(code)))
            let depth = X509_STORE_CTX_get_error_depth(context)
            ERR_clear_error()
            throw CryptoError(kind(forVerifyError: code), "certificate chain rejected at depth \(depth): \(reason)")
        }
        guard let chain = X509_STORE_CTX_get0_chain(context) else { throw CryptoError.openSSL("X509_STORE_CTX_get0_chain") }
        return Int(tollgate_sk_x509_num(chain))
    }

    private static func kind(forVerifyError code: Int32) -> CryptoError.Kind {
        switch code {
        case X509_V_ERR_CERT_HAS_EXPIRED:
            return .certificateExpired
        case X509_V_ERR_CERT_NOT_YET_VALID:
            return .certificateNotYetValid
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
            X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN, X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT,
            X509_V_ERR_CERT_UNTRUSTED, X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
            return .untrustedRoot
        case X509_V_ERR_CERT_SIGNATURE_FAILURE, X509_V_ERR_UNABLE_TO_DECRYPT_CERT_SIGNATURE,
            X509_V_ERR_UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY:
            return .certificateSignatureInvalid
        default:
            return .certificateChainInvalid
        }
    }
}
