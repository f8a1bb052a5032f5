import Logging
import Media

/// One kind of input (a camera, a Y4M stream, a GStreamer pipeline), its descriptor: how its URIs
/// are parsed, opened and checked, its settings (`settings`: key prefix, reading, checks, how a
/// reload reaches them), whether it is live, and how it describes itself (`--version`, `/status`).
///
/// A family is registered by one line in `Components.standard`; nothing else in the daemon
/// names it. Its module does the parsing (pure, text only) and the reading.
public struct InputFamily: Sendable {
    /// A source opened by a family, and what applies a reload's settings to it in place without
    /// reopening it (a camera's `device.controls`; nothing for most inputs).
    public typealias Opened = (source: any FrameSource, applyInPlace: @Sendable (PipelineOptions) -> Void)

    /// The family's name, as in `SourceURI.family`: `y4m`, `v4l2`, `gst`.
    public var name: String
    /// The URI schemes it owns (text before the first `:`): a source with one of them is this
    /// family's or an error, never another family's.
    public var schemes: Set<String>
    /// Its accepted forms, for messages (`y4m:PATH, - or a .y4m file`).
    public var forms: String
    /// Parses `text`: `nil` when it is not one of this family's forms.
    public var parse: @Sendable (String) throws(SourceURIError) -> SourceURI?
    /// Creates (but does not start) the source.
    public var open: @Sendable (SourceURI, PipelineOptions, Logger) throws -> Opened
    /// What `check-config` (and every configuration load) checks without opening the source:
    /// that something installed can read it. Throws a `SourceURIError` naming the remedy.
    public var checkInstalled: @Sendable (SourceURI) throws(SourceURIError) -> Void
    /// Whether a reload may switch to the source (opened and closed again, or `access(2)` for a
    /// device the running session may hold); throws the error opening it would.
    public var checkOpenable: @Sendable (SourceURI, PipelineOptions) throws -> Void
    /// Whether frames arrive in real time (late frames then dropped by default); `nil` when only
    /// opening it tells (a Y4M path that does not exist yet).
    public var isLive: @Sendable (SourceURI) -> Bool?
    /// Its library's line in `syncscan --version` (`name version (origin)`), if it has one.
    public var versionLine: @Sendable () -> String?
    /// Its settings, each under its key prefix (`device.*`, `rtsp.*`), read whichever source is
    /// configured; a change restarts the session (`SettingsReload.restartsSession`) but for what
    /// `open`'s `applyInPlace` applies.
    public var settings: [SettingsSection]

    public init(name: String, schemes: Set<String>, forms: String,
                parse: @escaping @Sendable (String) throws(SourceURIError) -> SourceURI?,
                open: @escaping @Sendable (SourceURI, PipelineOptions, Logger) throws -> Opened,
                checkInstalled: @escaping @Sendable (SourceURI) throws(SourceURIError) -> Void = { _ in },
                checkOpenable: @escaping @Sendable (SourceURI, PipelineOptions) throws -> Void,
                isLive: @escaping @Sendable (SourceURI) -> Bool?,
                versionLine: @escaping @Sendable () -> String? = { nil }, settings: [SettingsSection] = []) {
        self.name = name
        self.schemes = schemes
        self.forms = forms
        self.parse = parse
        self.open = open
        self.checkInstalled = checkInstalled
        self.checkOpenable = checkOpenable
        self.isLive = isLive
        self.versionLine = versionLine
        self.settings = settings
    }
}

/// The input families syncscan reads (`Components.inputs`), and the one parser of source URIs.
public enum InputRegistry {
    /// The standard families (`Components.standard.inputs`).
    public static var families: [InputFamily] { Components.standard.inputs }

    /// Every family's forms, for messages.
    static func acceptedForms(_ families: [InputFamily]) -> String { families.map(\.forms).joined(separator: "; ") }

    /// Parses `text` with the standard families (`parse(_:families:)`).
    public static func parse(_ text: String) throws(SourceURIError) -> SourceURI { try parse(text, families: families) }

    /// Parses `text` with the family that owns its scheme, or else the first family that claims
    /// it; pure (the file system is not looked at). Order matters for forms without a scheme of
    /// their own: the first family to claim the text has it (`/dev/shm/a.y4m` is a Y4M file, not a camera).
    /// - Throws: `SourceURIError` naming every accepted form when no family claims it.
    static func parse(_ text: String, families: [InputFamily]) throws(SourceURIError) -> SourceURI {
        guard !text.utf8.contains(0) else {
            throw SourceURIError(uri: text, reason: "it contains a NUL byte; expected \(acceptedForms(families))")
        }
        if let colon = text.firstIndex(of: ":"),
           let family = families.first(where: { $0.schemes.contains(text[..<colon].lowercased()) }) {
            guard let uri = try family.parse(text) else {
                throw SourceURIError(uri: text, reason: "expected \(family.forms)")
            }
            return uri
        }
        for family in families {
            if let uri = try family.parse(text) { return uri }
        }
        throw SourceURIError(uri: text, reason: "expected \(acceptedForms(families))")
    }

    /// The family among `families` that parsed `uri`.
    static func family(of uri: SourceURI, in families: [InputFamily]) -> InputFamily {
        guard let family = families.first(where: { $0.name == uri.family }) else {
            preconditionFailure("no input family \(uri.family) registered, though it parsed \(uri)")
        }
        return family
    }

    /// Parses `text` and checks, without opening it, that an installed library can read it:
    /// what every configuration load (and so `check-config`) asks of `source`.
    static func validate(_ text: String, families: [InputFamily]) throws(SourceURIError) -> SourceURI {
        let uri = try parse(text, families: families)
        try family(of: uri, in: families).checkInstalled(uri)
        return uri
    }

    /// Whether `text` names a live source (`nil`: unknown until opened, or unparsable).
    public static func isLive(_ text: String, families: [InputFamily] = InputRegistry.families) -> Bool? {
        guard let uri = try? parse(text, families: families) else { return nil }
        return family(of: uri, in: families).isLive(uri)
    }

    /// `text` as it may be shown (logs, `check-config`): its credentials redacted.
    public static func shown(_ text: String) -> String { SourceURI.redactingCredentials(text) }

    /// The `--version` lines of the standard families that have one, in registration order.
    public static var versionLines: [String] { families.compactMap { $0.versionLine() } }
}
