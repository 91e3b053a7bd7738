"""A real SMTP server (aiosmtpd, not ours) for the Mail end-to-end tests.

Usage: smtp_server.py --port N --dir FOLDER [--tls-cert PEM --tls-key PEM [--implicit-tls]]
                      [--auth LOGIN:PASSWORD [--auth-only PLAIN|LOGIN]] [--reject rcpt|data]

Each accepted message is written, exactly as received after DATA, to FOLDER/<n>.eml (written to a
temporary name, then renamed). With --tls-cert it offers and requires STARTTLS (or, with
--implicit-tls, speaks TLS from the first byte). With --auth it requires AUTH PLAIN or LOGIN with
that login. With --reject it answers 550 to RCPT TO or to the end of DATA. When ready it writes the
port to FOLDER/../ready (temporary name, then rename). It runs until its standard input closes or
it is terminated. Exits with status 3 and a message when aiosmtpd is not installed.
"""

import argparse
import os
import ssl
import sys
import threading
import uuid

try:
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult, LoginPassword
except ImportError:
    sys.stderr.write("aiosmtpd is not installed for %s: run scripts/install-test-tools "
                     "(Debian's python3-aiosmtpd, for /usr/bin/python3)\n" % sys.executable)
    sys.exit(3)


class Handler:
    def __init__(self, folder, reject):
        self.folder = folder
        self.reject = reject

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.reject == "rcpt":
            return "550 5.1.1 <%s>: mailbox unavailable (test rejection)" % address
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        if self.reject == "data":
            return "550 5.7.1 message content rejected (test rejection)"
        name = uuid.uuid4().hex
        temporary = os.path.join(self.folder, "." + name + ".tmp")
        with open(temporary, "wb") as output:
            output.write(envelope.original_content or envelope.content)
        os.rename(temporary, os.path.join(self.folder, name + ".eml"))
        return "250 OK queued as " + name


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--dir", required=True)
    parser.add_argument("--tls-cert")
    parser.add_argument("--tls-key")
    parser.add_argument("--implicit-tls", action="store_true")
    parser.add_argument("--auth")
    parser.add_argument("--auth-only", choices=["PLAIN", "LOGIN"])
    parser.add_argument("--reject", choices=["rcpt", "data"])
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)

    context = None
    if args.tls_cert:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(args.tls_cert, args.tls_key)

    parameters = {}
    if context is not None and not args.implicit_tls:
        parameters["tls_context"] = context
        parameters["require_starttls"] = True
    if args.auth:
        login, password = args.auth.split(":", 1)

        def authenticator(server, session, envelope, mechanism, auth_data):
            ok = (isinstance(auth_data, LoginPassword)
                  and auth_data.login == login.encode() and auth_data.password == password.encode())
            # handled=False makes aiosmtpd answer 535 itself on a failure.
            return AuthResult(success=ok, handled=False)

        parameters["authenticator"] = authenticator
        parameters["auth_required"] = True
        parameters["auth_require_tls"] = False
        if args.auth_only:
            parameters["auth_exclude_mechanism"] = [m for m in ("PLAIN", "LOGIN") if m != args.auth_only]

    controller = Controller(Handler(args.dir, args.reject), hostname="127.0.0.1", port=args.port,
                            ssl_context=context if args.implicit_tls else None, **parameters)
    controller.start()
    ready = os.path.join(os.path.dirname(os.path.abspath(args.dir)), "ready")
    with open(ready + ".tmp", "w") as output:
        output.write(str(args.port))
    os.rename(ready + ".tmp", ready)
    try:
        # Run until the parent closes our standard input (or kills us).
        sys.stdin.read()
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
