import Capture
import Media

/// One run of the pipeline: the loaded configuration plus the per-run command-line choices.
public struct PipelineOptions: Sendable, Hashable {
    public var configuration: SyncscanConfiguration
    /// Also write one record per frame (the ledger) on stdout.
    public var emitFrames: Bool
    /// Stop after this many frames (scanned or dropped); `nil` runs until the source ends.
    public var frameLimit: Int?
    /// The program's version (`syncscan --version`, `Syncscan.syncscanVersion`), for the handlers that name it
    /// (MQTT's Home Assistant device).
    public var softwareVersion: String

    public init(_ configuration: SyncscanConfiguration, emitFrames: Bool = false, frameLimit: Int? = nil, softwareVersion: String = "unknown") {
        self.configuration = configuration
        self.emitFrames = emitFrames
        self.frameLimit = frameLimit
        self.softwareVersion = softwareVersion
    }

    public var source: String { configuration.source }

    /// `source` for logs, `/status` and STATUS=: its credentials redacted (`SourceURI.redactingCredentials`).
    public var sourceShown: String { SourceURI.redactingCredentials(configuration.source) }

    /// Which readings become code lines (`duplicate_suppression.*`).
    public var reporting: CodeReporting { configuration.duplicateSuppression.reporting }

    /// Whether changing from `self` to `new` needs the source reopened (not just new scanner settings):
    /// the service's capture keys, or a component's settings whose descriptor says a change restarts
    /// the session (an input's, past what its family applies in place: a camera's `device.controls`);
    /// `trigger.mode` to or from `triggered` (the session's read windows are made with it).
    func needsRestart(for new: PipelineOptions) -> Bool {
        let (a, b) = (configuration, new.configuration)
        return a.source != b.source || a.components != b.components || a.alwaysDiscardLateVideoFrames != b.alwaysDiscardLateVideoFrames
            || a.scanningThreads != b.scanningThreads || b.components.restartsSession(from: a.componentSettings, to: b.componentSettings)
            || (a.trigger.mode == .triggered) != (b.trigger.mode == .triggered)
    }
}
