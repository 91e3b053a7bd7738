import Crypto

extension PostgresConnection {
    /// SSLRequest and the handshake, as `sslMode` asks (never over a Unix socket, as libpq).
    func negotiateTLS() throws {
        guard configuration.sslMode != .disable, case .tcp(let host, _) = configuration.endpoint else { return }
        var request = FrontendMessages()
        request.sslRequest()
        try stream.send(request)
        switch try stream.readSSLResponse() {
        case UInt8(ascii: "S"):
            let tls: TLSClientConfiguration =
                configuration.sslMode == .verifyFull ? TLSClientConfiguration(caFile: configuration.sslRootCertificate) : .encryptionOnly
            try stream.startTLS(host: host, configuration: tls)
        case UInt8(ascii: "N"):
            guard configuration.sslMode == .prefer else {
                throw PostgresError(.tls, "the server does not accept SSL connections (ssl = off), and sslmode is \(configuration.sslMode.rawValue)")
            }
        case UInt8(ascii: "E"):
            throw PostgresError(.tls, "the server answered the SSLRequest with an error (a server older than 7.2?)")
        default:
            throw PostgresError(.protocolViolation, "the server answered the SSLRequest with neither 'S' nor 'N'")
        }
    }

    /// StartupMessage, authentication, then the parameters and key until ReadyForQuery.
    func startUp() throws {
        var parameters = [("user", configuration.user), ("client_encoding", "UTF8")]
        if let database = configuration.database { parameters.append(("database", database)) }
        if let name = configuration.applicationName { parameters.append(("application_name", name)) }
        if let options = configuration.options { parameters.append(("options", options)) }
        guard parameters.allSatisfy({ !$0.0.utf8.contains(0) && !$0.1.utf8.contains(0) }) else {
            throw PostgresError(.configuration, "the user, database, application name or options contain a NUL character")
        }
        var startup = FrontendMessages()
        startup.startup(parameters: parameters)
        try stream.send(startup)

        var scram: SCRAMSHA256Client?
        var scramVerified = false
        while true {
            let message = try stream.receive()
            if handleAsynchronous(message) { continue }
            switch message {
            case .authentication(let request):
                switch request {
                case .ok:
                    // A server that skips server-final never proved it knows the password.
                    if scram != nil, !scramVerified {
                        throw PostgresError(.authentication, "SCRAM-SHA-256: the server accepted the session without proving it knows the password")
                    }
                case .cleartextPassword:
                    authenticationMethod = "password"
                    try sendPassword(try requirePassword("password"))
                case .md5Password(let salt):
                    authenticationMethod = "md5"
                    try sendPassword(MD5Password.answer(user: configuration.user, password: try requirePassword("md5"), salt: salt))
                case .sasl(let mechanisms):
                    authenticationMethod = "scram-sha-256"
                    guard mechanisms.contains("SCRAM-SHA-256") else {
                        if mechanisms.contains("SCRAM-SHA-256-PLUS") {
                            throw PostgresError(
                                .authentication, "the server requires SCRAM-SHA-256-PLUS (channel binding), which this client does not support")
                        }
                        throw PostgresError(
                            .authentication,
                            "the server offers only SASL mechanisms this client does not support: \(mechanisms.joined(separator: ", "))")
                    }
                    let client = try SCRAMSHA256Client(password: try requirePassword("SCRAM-SHA-256"))
                    var response = FrontendMessages()
                    response.saslInitialResponse(mechanism: "SCRAM-SHA-256", data: client.clientFirstMessage)
                    try stream.send(response)
                    scram = client
                case .saslContinue(let serverFirst):
                    guard var client = scram, !client.hasSentProof else {
                        throw PostgresError(.protocolViolation, "an unexpected SASL continuation from the server")
                    }
                    var response = FrontendMessages()
                    response.saslResponse(try client.clientFinalMessage(serverFirst: serverFirst))
                    scram = client
                    try stream.send(response)
                case .saslFinal(let serverFinal):
                    guard let client = scram, client.hasSentProof else {
                        throw PostgresError(.protocolViolation, "an unexpected SASL final message from the server")
                    }
                    try client.verify(serverFinal: serverFinal)
                    scramVerified = true
                case .unsupported(let code):
                    throw PostgresError(
                        .authentication, "the server asks for an authentication method this client does not support (\(Self.methodName(code)))")
                }
            case .backendKeyData(let processID, let secretKey):
                self.processID = processID
                self.secretKey = secretKey
            case .negotiateProtocolVersion:
                continue  // only about options this client never sends
            case .errorResponse(let error):
                // Class 28 is "invalid authorization specification" (28P01: wrong password).
                let kind: PostgresError.Kind = error.code.hasPrefix("28") ? .authentication : .server
                throw PostgresError(kind, "the server refused the session: \(error.message)", server: error)
            case .readyForQuery(let status):
                transactionStatus = status
                return
            default:
                throw PostgresError(.protocolViolation, "an unexpected message from the server during start-up")
            }
        }
    }

    private func requirePassword(_ method: String) throws -> String {
        guard let password = configuration.password else {
            throw PostgresError(.authentication, "the server asks for \(method) authentication and the configuration has no password")
        }
        return password
    }

    private func sendPassword(_ text: String) throws {
        var message = FrontendMessages()
        message.password(text)
        try stream.send(message)
    }

    private static func methodName(_ code: Int32) -> String {
        switch code {
        case 2: "Kerberos V5"
        case 6: "SCM credentials"
        case 7, 8: "GSSAPI"
        case 9: "SSPI"
        default: "code \(code)"
        }
    }
}
