import Testing

/// Every test that starts a live service, one at a time: each brings up a server, a fake Stripe
/// and a fake Google Play, and the machine's two cores are shared with the rest of the suite.
@Suite("TollgateClient against a live Tollgate", .serialized)
struct LiveServiceTests {}
