import Media

/// Warnings for secrets given as flags: any user of the machine can read a process's command line
/// (`/proc/PID/cmdline`), so a password belongs in the configuration file or a `*_file` setting.
enum CommandLineSecrets {
    /// One warning per flag holding a secret (`SecretRedaction.holdsSecret`), naming where to put
    /// it instead; each shows the flag's value redacted, never the secret.
    static func warnings(source: String?, mqttURL: String?, webhookURLs: [String]) -> [String] {
        let readable = "any user of this machine can read it in /proc/PID/cmdline"
        var warnings: [String] = []
        if let source, SecretRedaction.holdsSecret(source) {
            warnings.append("--source \(SecretRedaction.redacted(source)) holds a password or token: \(readable); "
                            + "set source in the configuration file (--config), readable by the service's user only")
        }
        if let mqttURL, SecretRedaction.holdsSecret(mqttURL, hiding: .userinfo) {
            warnings.append("--mqtt-url \(SecretRedaction.redacted(mqttURL, hiding: .userinfo)) holds credentials: \(readable); "
                            + "set mqtt.username and mqtt.password_file in the configuration file instead")
        }
        for url in webhookURLs where SecretRedaction.holdsSecret(url, hiding: .userinfo) {
            warnings.append("--webhook-url \(SecretRedaction.redacted(url, hiding: .userinfo)) holds credentials: \(readable); "
                            + "set webhook.url in the configuration file, a bearer token in webhook.token_file")
        }
        return warnings
    }
}
