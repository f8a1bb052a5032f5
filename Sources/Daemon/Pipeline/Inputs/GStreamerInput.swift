import GStreamer
import Media

extension InputFamily {
    /// GStreamer: `rtsp(s)://`, `http(s)://`, video files and `gst:PIPELINE`. Network streams and
    /// `gst:` pipelines are live and reopened for `device.missing_timeout`; files are not live.
    /// `check-config` refuses a URI no installed plugin reads, naming the Debian package.
    static let gstreamer = InputFamily(
        name: "gst", schemes: GStreamerURI.schemes, forms: GStreamerURI.forms,
        parse: { text throws(SourceURIError) in try GStreamerURI.parse(text) },
        open: { uri, options, logger in
            let rtsp = options.configuration.rtsp
            return (try GStreamerSource(uri: uri, missingTimeout: options.configuration.device.missingTimeout, transport: rtsp.transport,
                                        latencyMilliseconds: rtsp.latencyMilliseconds, cameraTime: rtsp.cameraTime, logger: logger), { _ in })
        },
        checkInstalled: { uri throws(SourceURIError) in try GStreamerURI.checkInstalled(uri) },
        checkOpenable: { _, _ in },
        isLive: { uri in GStreamerURI.isLive(uri) },
        versionLine: { "GStreamer \(GStreamerLibrary.version) (\(GStreamerLibrary.versionOrigin))" },
        settings: [SettingsSection(.rtsp, prefix: "rtsp", reload: .restartsSession, read: RTSPSettings.init(reading:),
                                   describe: { [("rtsp.transport", "\($0.transport)")] })])
}

extension SettingsKey where Value == RTSPSettings {
    /// `rtsp.*`: how an `rtsp://` source is read.
    public static var rtsp: Self { Self("rtsp", default: RTSPSettings()) }
}

extension SyncscanConfiguration {
    /// How an `rtsp://` source is read (`rtsp.transport`, `rtsp.latency_ms`).
    public var rtsp: RTSPSettings { get { self[.rtsp] } set { self[.rtsp] = newValue } }
}
