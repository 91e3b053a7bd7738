// The closed sets of values some configuration keys accept. Kept together because each is a
// three-line enum whose raw values are the spelling in the configuration file.

/// `redemption.mode`: show the code on the success page, or redirect to a configured URL.
public enum RedemptionMode: String, Sendable, Equatable, CaseIterable {
    case redeem, redirect
}

/// `redemption.on_other_user`: what happens when a redeemed purchase is claimed by another app user.
public enum OnOtherUser: String, Sendable, Equatable, CaseIterable {
    case `switch`, transfer, reject
}

/// `plans.<name>.mode`: the Stripe Checkout Session mode of a plan.
public enum PlanMode: String, Sendable, Equatable, CaseIterable {
    case subscription, payment
}

/// `mail.transport`: send with SMTP, write `.eml` files to `mail.file_dir`, or only log.
public enum MailTransport: String, Sendable, Equatable, CaseIterable {
    case smtp, file, log
}

/// `mail.smtp.security`: STARTTLS upgrade, implicit TLS, or plaintext.
public enum SMTPSecurity: String, Sendable, Equatable, CaseIterable {
    case starttls, tls, none
}

/// `apple.environment`: the App Store environment purchases must come from.
public enum AppleEnvironment: String, Sendable, Equatable, CaseIterable {
    case production = "Production"
    case sandbox = "Sandbox"
    case xcode = "Xcode"
}

/// `log.level`: the least severe log level written.
public enum LogLevel: String, Sendable, Equatable, CaseIterable {
    case debug, info, warning, error
}
