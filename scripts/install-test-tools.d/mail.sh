# Mail end-to-end tests: a real SMTP server (aiosmtpd) and the openssl CLI for test certificates.
if ! python3 -c 'import aiosmtpd' >/dev/null 2>&1; then
    python3 -m pip install --quiet aiosmtpd==1.4.6
fi
if ! command -v openssl >/dev/null 2>&1; then
    apt-get install -y openssl
fi
