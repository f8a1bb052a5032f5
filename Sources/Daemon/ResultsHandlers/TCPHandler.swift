import Results

extension ResultsHandlerDescriptor {
    /// The TCP result server (`tcp.*`): every result to its clients as one message of
    /// `tcp.format`, and their line commands (`TRIGGER` presses the scan's trigger), a sink;
    /// read at start (the socket is bound once).
    public static let tcp = ResultsHandlerDescriptor(
        name: "tcp", settings: .tcp, read: TCPSettings.init(reading:),
        reload: .atStart(why: "the TCP result server's socket is bound at start"), sink: "tcp.listen",
        make: { settings, context in
            TCPResultServer(settings: settings, triggers: context.triggers, readWindows: context.readWindows, logger: context.logger,
                            expected: context.expected)
        },
        describe: { [("listen", "\($0.listen)"), ("max_clients", "\($0.maxClients)"), ("token", $0.token == nil ? "none" : "required")] })
}

extension SettingsKey where Value == TCPSettings? {
    public static var tcp: Self { Self("tcp", default: nil) }
}

extension SyncscanConfiguration {
    /// The TCP result server; `nil` (no `tcp.listen`): none.
    public var tcp: TCPSettings? { get { self[.tcp] } set { self[.tcp] = newValue } }
}
