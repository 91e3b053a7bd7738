// libFuzzer target: the Stripe-Signature header parser and verifier. Any header must parse or
// throw StripeError.webhook; what parses must re-parse identically from its own parts; and a
// header carrying the right v1 signature for its timestamp must verify (time check off).
// Built by scripts/fuzz.
import Crypto
import Foundation
@testable import Integrations

private let secret = "whsec_fuzz"
private let verifier = StripeWebhookVerifier(secret: secret, tolerance: nil)
private let mac = try! HMACSHA256(key: Array(secret.utf8))
private let payload = Array(#"{"id":"evt_1"}"#.utf8)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStripeSignature(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let header = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let parsed: (timestamp: Int64, v1: [String])
    do {
        parsed = try StripeWebhookVerifier.parse(header)
    } catch StripeError.webhook {
        return 0
    } catch {
        fatalError("not a StripeError.webhook: \(error)")
    }
    guard parsed.timestamp >= 0 else { fatalError("negative timestamp from \(header.debugDescription)") }
    do {
        try verifier.verify(payload: payload, signatureHeader: header, now: Date(timeIntervalSince1970: 0))
    } catch StripeError.webhook {
    } catch {
        fatalError("verify threw \(error)")
    }
    // Only for ASCII headers (Stripe's): Swift splits on Characters, and a "," after a Unicode
    // prepend mark (U+0600...) is not a separate Character.
    guard header.utf8.allSatisfy({ $0 < 0x80 }) else { return 0 }
    let expected = try! mac.authenticationCode(for: Array("\(parsed.timestamp).".utf8) + payload)
    let genuine = "\(header),v1=\(Hex.encode(expected))"
    guard genuine.utf8.count <= StripeWebhookVerifier.maxHeaderBytes else { return 0 }
    guard let again = try? StripeWebhookVerifier.parse(genuine), again.timestamp == parsed.timestamp else {
        fatalError("appending a v1 changed the parse of \(header.debugDescription)")
    }
    do {
        try verifier.verify(payload: payload, signatureHeader: genuine, now: Date(timeIntervalSince1970: 0))
    } catch {
        fatalError("a genuine signature was refused: \(error) for \(genuine.debugDescription)")
    }
    return 0
}
