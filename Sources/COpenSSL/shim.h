#ifndef TOLLGATE_COPENSSL_SHIM_H
#define TOLLGATE_COPENSSL_SHIM_H
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

/* Function-like macros and variadic calls are wrapped here: Swift cannot import them. */
static inline long tollgate_ssl_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}
/* --- Crypto module wrappers ---------------------------------------------------------------- */

/* The low-level SHA-256 API is deprecated in 3.0 but is still the assembly-backed core with no
   provider fetch and no allocation per call: HMAC and streaming SHA-256 use it for speed, with the
   deprecation warning silenced here only. Every wrapper returns OpenSSL's 1-on-success code. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static inline int tollgate_sha256_init(SHA256_CTX *c) { return SHA256_Init(c); }
static inline int tollgate_sha256_update(SHA256_CTX *c, const void *data, size_t len) {
    return SHA256_Update(c, data, len);
}
static inline int tollgate_sha256_final(unsigned char *md, SHA256_CTX *c) { return SHA256_Final(md, c); }
#pragma GCC diagnostic pop

/* STACK_OF(X509) helpers are macros / type-checked inlines Swift cannot import. The stack never
   owns the certificates pushed onto it (callers free only the stack). */
static inline STACK_OF(X509) *tollgate_sk_x509_new_null(void) { return sk_X509_new_null(); }
static inline int tollgate_sk_x509_push(STACK_OF(X509) *sk, X509 *cert) { return sk_X509_push(sk, cert); }
static inline int tollgate_sk_x509_num(const STACK_OF(X509) *sk) { return sk_X509_num(sk); }
static inline void tollgate_sk_x509_free(STACK_OF(X509) *sk) { sk_X509_free(sk); }

/* BIO_get_mem_data is a macro. */
static inline long tollgate_bio_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }
static inline unsigned long tollgate_xn_flag_rfc2253(void) { return XN_FLAG_RFC2253; }

/* EVP_EC_gen is a macro over the variadic EVP_PKEY_Q_keygen. */
static inline EVP_PKEY *tollgate_ec_p256_generate(void) { return EVP_EC_gen("P-256"); }

/* OSSL_PARAM arrays keep pointers to their key names, so they are built here where the names are
   static literals. `password`/`salt` may be empty but must not be NULL. */
static inline int tollgate_scrypt_derive(EVP_KDF_CTX *ctx,
                                         const unsigned char *pass, size_t pass_len,
                                         const unsigned char *salt, size_t salt_len,
                                         uint64_t n, uint32_t r, uint32_t p, uint64_t maxmem,
                                         unsigned char *out, size_t out_len) {
    OSSL_PARAM params[7];
    params[0] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_PASSWORD, (void *)pass, pass_len);
    params[1] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)salt, salt_len);
    params[2] = OSSL_PARAM_construct_uint64(OSSL_KDF_PARAM_SCRYPT_N, &n);
    params[3] = OSSL_PARAM_construct_uint32(OSSL_KDF_PARAM_SCRYPT_R, &r);
    params[4] = OSSL_PARAM_construct_uint32(OSSL_KDF_PARAM_SCRYPT_P, &p);
    params[5] = OSSL_PARAM_construct_uint64(OSSL_KDF_PARAM_SCRYPT_MAXMEM, &maxmem);
    params[6] = OSSL_PARAM_construct_end();
    return EVP_KDF_derive(ctx, out, out_len, params);
}

static inline int tollgate_hkdf_sha256_derive(EVP_KDF_CTX *ctx,
                                              const unsigned char *key, size_t key_len,
                                              const unsigned char *salt, size_t salt_len,
                                              const unsigned char *info, size_t info_len,
                                              unsigned char *out, size_t out_len) {
    OSSL_PARAM params[5];
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)"SHA256", 0);
    params[1] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)key, key_len);
    params[2] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)salt, salt_len);
    params[3] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)info, info_len);
    params[4] = OSSL_PARAM_construct_end();
    return EVP_KDF_derive(ctx, out, out_len, params);
}
#endif
