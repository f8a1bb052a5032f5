import LiveView

extension ResultsHandlerDescriptor {
    /// The live view (`http.*`): its handler takes each frame's codes and previews, its HTTP
    /// server (a service of the group) serves them and takes `POST /trigger` for the scan's trigger;
    /// a reload applies `http.*` to the server in place.
    public static let liveView = ResultsHandlerDescriptor(
        name: "live_view", settings: .http, read: HTTPSettings.init(reading:),
        reload: .inPlace { _, _, _ in },  // the server's own reload applies them (`services`)
        make: { settings, context in LiveViewResultsHandler(settings: settings.liveView, source: context.source, logger: context.logger) },
        services: { handler, settings, context in
            let server = LiveViewHTTPService(settings: settings, liveView: handler, scan: context.scan, logger: context.logger,
                                             inheritedSocket: context.sockets.liveViewSocket, triggers: context.scan.triggers,
                                             expected: context.scan.expected)
            return [ComponentService(server) { server.reload($0.http) }]
        },
        describe: { [("listen", "\($0.listen)")] })
}

extension SettingsKey where Value == HTTPSettings? {
    public static var http: Self { Self("http", default: nil) }
}

extension SyncscanConfiguration {
    /// The live view over HTTP; `nil` (no `http.listen`): no server.
    public var http: HTTPSettings? { get { self[.http] } set { self[.http] = newValue } }
}
