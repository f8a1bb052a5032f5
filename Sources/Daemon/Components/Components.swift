import Capture
import ConfigurationKeys
import Media

/// The pluggable parts a configuration composes, each by its descriptor: input families, decoder
/// libraries, results handlers, triggers.
///
/// A descriptor owns its key prefix and reads its settings from the reader scoped to it (each
/// problem named with its key: `check-config`), builds its part, says how a reload reaches it
/// (`SettingsReload`, from which the restarts follow: `PipelineOptions.needsRestart`,
/// `SyncscanConfiguration.startOnlyChanges`), names the services it runs, and describes itself for
/// `--version` and `/status`. Two sets of components are equal when they register the same names.
public struct Components: Sendable, Hashable {
    public var inputs: [InputFamily]
    public var decoders: [DecoderLibraryDescriptor]
    /// In the order codes pass through them.
    public var handlers: [ResultsHandlerDescriptor]
    /// What presses the trigger of `trigger.mode: triggered`.
    public var triggers: [TriggerDescriptor]

    /// syncscan's components, one registration line each (as go2rtc's modules in its `main.go`).
    public static let standard = Components(
        inputs: [
            .y4m,  // first: `/dev/shm/a.y4m` is a Y4M file, not a camera
            .v4l2,
            .gstreamer,
        ],
        decoders: [
            .zbar,
            .zxing,
        ],
        handlers: [
            .match,  // first, so every line and message of a code carries its `match`
            .snapshots,  // before the others, so the lines and messages after it name the code's snapshot
            .mqtt,
            .webhook,
            .keyboard,
            .tcp,  // a TCP server sending every result to its clients (a PLC), taking their TRIGGER commands
            .modbus,  // a Modbus TCP server: the last result and counters in input registers, coil 0 the trigger
            .liveView,
        ],
        triggers: [
            .signal,  // SIGUSR1
            .key,  // trigger.key.*: a key of an input device
        ])

    public init(inputs: [InputFamily], decoders: [DecoderLibraryDescriptor], handlers: [ResultsHandlerDescriptor],
                triggers: [TriggerDescriptor] = []) {
        (self.inputs, self.decoders, self.handlers, self.triggers) = (inputs, decoders, handlers, triggers)
    }

    private var names: [String] { inputs.map(\.name) + decoders.map(\.name) + handlers.map(\.name) + triggers.map { "trigger:" + $0.name } }
    public static func == (a: Components, b: Components) -> Bool { a.names == b.names }
    public func hash(into hasher: inout Hasher) { hasher.combine(names) }

    /// Every registered input's accepted forms (`--source`'s help, the messages of a source no
    /// family reads).
    public var sourceForms: String { InputRegistry.acceptedForms(inputs) }

    /// The registered libraries' engines, each once: the `engine` key's choices.
    public var engines: [DecoderEngine] {
        decoders.flatMap(\.engines).reduce(into: []) { all, engine in if !all.contains(where: { $0.name == engine.name }) { all.append(engine) } }
    }

    /// The inputs' settings, then the decoders' (the shared `decoding` first), then the handlers'.
    var inputSections: [SettingsSection] { inputs.flatMap(\.settings) }
    var decoderSections: [SettingsSection] { [decoding] + decoders.compactMap(\.settings) }
    var handlerSections: [SettingsSection] { handlers.map(\.settings) }
    var triggerSections: [SettingsSection] { triggers.compactMap(\.settings) }

    /// Whether `new`'s component settings reopen the source: an input's settings changed, past
    /// what its family applies in place.
    func restartsSession(from old: ComponentSettingsStore, to new: ComponentSettingsStore) -> Bool {
        (inputSections + decoderSections + handlerSections + triggerSections).contains { $0.reload == .restartsSession && $0.changed(from: old, to: new) }
    }

    /// The key groups read only at start that differ in `new`, with why.
    func startOnlyChanges(from old: ComponentSettingsStore, to new: ComponentSettingsStore) -> [(keys: String, why: String)] {
        (inputSections + decoderSections + handlerSections + triggerSections).compactMap { section in
            guard case .restartsService(let why) = section.reload, section.changed(from: old, to: new) else { return nil }
            return (section.keys, why)
        }
    }

    /// The `--version` lines of the components that have one: the decoder libraries', the
    /// handlers' libraries', then the inputs', in registration order.
    public var decoderVersionLines: [String] { decoders.map(\.library.version.line) }
    public var handlerVersionLines: [String] { handlers.compactMap { $0.versionLine() } }
    public var inputVersionLines: [String] { inputs.compactMap { $0.versionLine() } }

    /// What the parts `configuration` uses say of themselves in `/status`: the source's input
    /// family, the engine's libraries, the handlers and the triggers with settings turned on
    /// (`handlers`, as made at start).
    func descriptions(_ configuration: SyncscanConfiguration, handlers: ResultsHandlerRegistry.Handlers) -> [ComponentDescription] {
        var described: [ComponentDescription] = []
        if let uri = try? InputRegistry.parse(configuration.source, families: inputs) {
            let family = InputRegistry.family(of: uri, in: inputs)
            described.append(ComponentDescription(kind: "input", name: family.name,
                                                  fields: family.settings.flatMap { $0.describe(configuration.componentSettings) }))
        }
        let libraries = Set(configuration.engine.passes.map(\.library))
        described += decoders.filter { libraries.contains($0.library.id) }.map { $0.description(configuration.componentSettings) }
        return described + handlers.descriptions(configuration)
    }
}

/// What a component says of itself in `/status`: its kind, its name and a few fields (never a secret).
public struct ComponentDescription: Sendable, Equatable {
    public var kind: String
    public var name: String
    public var fields: [(name: String, value: String)]

    public static func == (a: Self, b: Self) -> Bool {
        a.kind == b.kind && a.name == b.name && a.fields.map(\.name) == b.fields.map(\.name) && a.fields.map(\.value) == b.fields.map(\.value)
    }
}
