import Capture
import Logging
import LiveView
import Results

/// The results handlers a configuration turns on beside stdout's JSON lines, made from its
/// registered descriptors (`Components.handlers`), in the order each code passes through them.
///
/// To add a handler: its type (a `ResultsHandler`; a `ServiceHooks` too when it has threads to
/// start, a `CountsReporting` when it counts), its settings, and its descriptor
/// (`ResultsHandlerDescriptor`), registered by one line in `Components.standard`. The service
/// starts, feeds, counts, reloads and finishes it through the descriptor and the protocols alone.
public enum ResultsHandlerRegistry {
    /// The handlers one configuration turned on, each with its descriptor, in the order codes
    /// pass through them; the descriptors of those left off too (a reload may tell of them).
    public struct Handlers: Sendable {
        let made: [(descriptor: ResultsHandlerDescriptor, handler: any ResultsHandler)]
        let descriptors: [ResultsHandlerDescriptor]
        /// The triggers the registered trigger descriptors made (`Components.triggers`).
        let triggers: [(descriptor: TriggerDescriptor, trigger: MadeTrigger)]
        /// The counters of the triggers that count, after the handlers'.
        private let triggerCounters: [TriggerCounters]

        init(made: [(descriptor: ResultsHandlerDescriptor, handler: any ResultsHandler)], descriptors: [ResultsHandlerDescriptor],
             triggers: [(descriptor: TriggerDescriptor, trigger: MadeTrigger)] = []) {
            (self.made, self.descriptors, self.triggers) = (made, descriptors, triggers)
            triggerCounters = triggers.compactMap { made in made.trigger.counters.map { TriggerCounters(made.trigger, counters: $0) } }
        }

        /// The handlers in the order codes pass through them.
        public var all: [any ResultsHandler] { made.map(\.handler) }

        /// The handlers in the order codes pass through them, each with its descriptor's name.
        public var named: [(name: String, handler: any ResultsHandler)] { made.map { ($0.descriptor.name, $0.handler) } }

        /// What counts, in the order the lines show it: the handlers that count, then the triggers that do.
        public var counted: [any CountsReporting] { made.compactMap { $0.handler as? any CountsReporting } + triggerCounters }

        /// The handler the descriptor named `name` made; `nil`: it is off.
        public func handler(named name: String) -> (any ResultsHandler)? { made.first { $0.descriptor.name == name }?.handler }

        /// The services the handlers and the triggers run beside the scan (the live view's HTTP
        /// server, SIGUSR1's listener, the key trigger's device).
        func services(_ configuration: SyncscanConfiguration, context: ComponentServiceContext) -> [ComponentService] {
            made.flatMap { $0.descriptor.services($0.handler, configuration, context) } + triggers.flatMap { $0.trigger.services(context) }
        }

        /// What the handlers turned on say of themselves in `/status`.
        func descriptions(_ configuration: SyncscanConfiguration) -> [ComponentDescription] {
            made.filter { $0.descriptor.isDescribed(configuration) }
                .map { ComponentDescription(kind: "handler", name: $0.descriptor.name, fields: $0.descriptor.describe(configuration)) }
                + triggers.filter(\.trigger.described)
                .map { ComponentDescription(kind: "trigger", name: $0.descriptor.name, fields: $0.descriptor.describe(configuration)) }
        }
    }

    /// What a handler may need besides its own settings.
    public struct Context: Sendable {
        /// The starting source's URI (the `source` field, MQTT's default topic prefix).
        public var source: String
        /// The name the source's input family gives it (`SourceURI.name`: MQTT's default topic
        /// prefix, client id and Home Assistant device); `nil`: read from `source`.
        public var sourceName: String?
        public var logger: Logger
        /// Where snapshots go; `nil`: `snapshots.directory` on disk (tests pass a fake disk).
        public var snapshotDirectory: (any SnapshotDirectory)?
        /// The program's version (MQTT's Home Assistant device).
        public var softwareVersion: String
        /// What a handler that takes trigger commands (MQTT's `PREFIX/trigger`) presses.
        public var triggers: TriggerSwitch
        /// Whether the scan opens read windows (`trigger.mode: triggered`): handlers that describe
        /// what they publish describe the read results too (MQTT's Home Assistant entities).
        public var readWindows: Bool
        /// The tally against `match.list` the match handler counts into and others reset or show
        /// (the TCP server's `RESET EXPECTED`, the Modbus registers); by default one of its own,
        /// per read window when `readWindows`.
        public var expected: ExpectedTally

        public init(source: String, sourceName: String? = nil, logger: Logger, snapshotDirectory: (any SnapshotDirectory)? = nil,
                    softwareVersion: String = "unknown", triggers: TriggerSwitch = TriggerSwitch(), readWindows: Bool = false,
                    expected: ExpectedTally? = nil) {
            self.expected = expected ?? ExpectedTally(perWindow: readWindows)
            self.triggers = triggers
            self.readWindows = readWindows
            self.source = source
            self.sourceName = sourceName
            self.logger = logger
            self.snapshotDirectory = snapshotDirectory
            self.softwareVersion = softwareVersion
        }
    }

    /// The handlers `configuration` asks for, made (their threads start with
    /// `ServiceHooks.start()`), and its triggers, pressing `context.triggers` (their threads start
    /// with their services).
    public static func make(_ configuration: SyncscanConfiguration, context: Context) -> Handlers {
        let descriptors = configuration.components.handlers
        let triggers = configuration.components.triggers.compactMap { descriptor in
            descriptor.make(configuration, context.triggers, context.logger).map { (descriptor, $0) }
        }
        return Handlers(made: descriptors.compactMap { descriptor in descriptor.make(configuration, context).map { (descriptor, $0) } },
                        descriptors: descriptors, triggers: triggers)
    }

    /// Applies a reloaded configuration to the handlers whose descriptors take one in place (the
    /// webhook's `webhook.*`). The rest are read at start (`SyncscanConfiguration.startOnlyChanges`).
    public static func reload(_ handlers: Handlers, to new: SyncscanConfiguration, logger: Logger) {
        for descriptor in handlers.descriptors {
            descriptor.applyInPlace?(handlers.handler(named: descriptor.name), new, logger)
        }
    }
}

extension ResultsHandlerRegistry.Handlers {
    /// The live view's handler, whose frames its HTTP service serves; `nil`: no `http.listen`.
    public var liveView: LiveViewResultsHandler? { handler(named: ResultsHandlerDescriptor.liveView.name) as? LiveViewResultsHandler }
    /// The webhook's handler; `nil`: no `webhook.url` at start.
    public var webhook: WebhookResultsHandler? { handler(named: ResultsHandlerDescriptor.webhook.name) as? WebhookResultsHandler }
}
