// Placeholder: the crypto benchmark lands with the Crypto module.
print("crypto benchmark not built yet")
